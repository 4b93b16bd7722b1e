import { z } from "zod";

/** One file a write touched: its content hash before and after (null: absent). */
const FileHashesSchema = z
  .object({ path: z.string(), before: z.string().nullable(), after: z.string().nullable() })
  .strict();

/**
 * What one executed write-effect call changed, as the pipeline records it once the call has run:
 * the history persists these. Files carry content hashes; database writes (plot, SQL, World Engine)
 * carry the row bases their tool pins approvals to.
 */
export const ChangeRecordSchema = z
  .object({
    /** The change id the pipeline allocated before the call ran (see RunGrant.changeId). */
    id: z.string(),
    /** When the call finished (ISO 8601, UTC). */
    time: z.string(),
    tool: z.string(),
    session: z.string().nullable(),
    profile: z.string().nullable(),
    callId: z.string().nullable(),
    /** Project-relative paths the call wrote; null when they cannot be named (bash, a database). */
    targets: z.array(z.string()).nullable(),
    files: z.array(FileHashesSchema).optional(),
    rows: z.object({ before: z.unknown(), after: z.unknown() }).strict().optional(),
    /** One line saying what changed. */
    summary: z.string(),
  })
  .strict();
export type ChangeRecord = z.infer<typeof ChangeRecordSchema>;

/** What a tool's run reports it changed; the pipeline adds who and where. */
export type ChangeReport = Partial<Pick<ChangeRecord, "targets" | "files" | "rows" | "summary">>;

/** Who made a call and under which change id, for its record. */
export interface CallOrigin {
  id: string;
  tool: string;
  session: string | null;
  profile: string | null;
  callId: string | null;
}

/** The first line of a result's text, as a summary when the tool gave none. */
function firstLine(text: string): string {
  return text.split("\n", 1)[0].trim();
}

/**
 * The record of one executed call, or null when there is none: a read, or a write that reports it
 * changed nothing. A write that reports nothing still gets one: a tool cannot skip its record.
 */
export function changeRecord(
  origin: CallOrigin,
  prepared: { effect: "read" | "write"; targets: string[] | null },
  result: { text: string; change?: ChangeReport | "unchanged" },
): ChangeRecord | null {
  if (prepared.effect !== "write" || result.change === "unchanged") return null;
  const report = result.change ?? {};
  return ChangeRecordSchema.parse({
    ...origin,
    time: new Date().toISOString(),
    targets: report.targets !== undefined ? report.targets : prepared.targets,
    ...(report.files ? { files: report.files } : {}),
    ...(report.rows ? { rows: report.rows } : {}),
    summary: report.summary ?? firstLine(result.text),
  });
}
