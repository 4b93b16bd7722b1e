import { createHash } from "node:crypto";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { withFileLock } from "../../memory/file-lock.js";
import { appendAnchor, EventSchema } from "../../memory/files.js";
import { type PlannedAppend, planAppend, writeAppend } from "../../memory/subjects.js";
import { defineTool } from "../define.js";
import { unifiedDiff } from "../files/common.js";
import { once } from "../once.js";
import type { ChangeReport } from "../pipeline/record.js";
import type { RunGrant, ToolContext } from "../types.js";
import { allowedSubject, SubjectPath, subjectFiles } from "./access.js";

const AppendInput = z
  .object({
    subjectPath: SubjectPath,
    events: z.array(EventSchema).min(1),
  })
  .strict();

/**
 * What an append's approval is pinned to: the events file's size and last line when the preview
 * was made (appendAnchor; null: no file yet), with the events it appends. Checking it costs the
 * same whatever the file's length, and an approved append finding it unchanged does exactly what
 * its preview showed.
 */
const AppendBasisSchema = z
  .object({
    path: z.string(),
    anchor: z
      .object({ bytes: z.number().int().min(0), tail: z.string() })
      .strict()
      .nullable(),
  })
  .strict();
type AppendBasis = z.infer<typeof AppendBasisSchema>;

/** The content hashes of the file before and after the append, in one pass over the text it keeps. */
function appendHashes(p: PlannedAppend): NonNullable<ChangeReport["files"]> {
  const keep = p.after.length - p.add.length;
  const h = createHash("sha256").update(p.after.slice(0, keep), "utf8");
  // Only an append that drops a torn last line kept less than the whole file.
  const before =
    p.before === null
      ? null
      : keep === p.before.length
        ? h.copy().digest("hex")
        : createHash("sha256").update(p.before, "utf8").digest("hex");
  return [{ path: p.file, before, after: h.update(p.add, "utf8").digest("hex") }];
}

/** True when two anchors (appendAnchor) are the same. */
function sameAnchor(a: AppendBasis["anchor"], b: AppendBasis["anchor"]): boolean {
  return a === null || b === null ? a === b : a.bytes === b.bytes && a.tail === b.tail;
}

async function planEventAppend(input: z.infer<typeof AppendInput>, ctx: ToolContext, path: string) {
  const p = await planAppend(subjectFiles(ctx, "none"), path, input.events);
  const basis: AppendBasis = { path: p.file, anchor: appendAnchor(p.before) };
  return {
    ...p,
    basis,
    preview: () => ({
      text: `Append ${input.events.length} event${input.events.length === 1 ? "" : "s"} to ${p.file}:\n${unifiedDiff(p.file, p.before, p.after, 0)}`,
      details: { subjectPath: path, sourcePath: p.file, events: input.events, created: p.before === null },
      basis,
    }),
  };
}

type EventAppendPlan = Awaited<ReturnType<typeof planEventAppend>>;

/**
 * The plan a granted append runs, made again under the file's lock. One the user approved must find
 * the file as its preview did (same anchor), else it fails with `conflict` showing the append as it
 * would apply now; one granted no writes (no preview was shown) is refused likewise.
 */
function checkedPlan(grant: RunGrant<AppendBasis>, p: EventAppendPlan): EventAppendPlan {
  const approved = grant.approval?.basis;
  if (approved && (approved.path !== p.basis.path || !sameAnchor(approved.anchor, p.basis.anchor))) {
    throw new NbError(
      "conflict",
      `${p.file} changed after the preview the user approved, so nothing was written. The subject_event_append call as it would apply now:\n${p.preview().text}\nCall subject_event_append again to ask the user to approve the change as it stands.`,
      { details: { changed: [p.file], preview: p.preview() } },
    );
  }
  if (grant.writes === "none") {
    throw new NbError(
      "conflict",
      `${p.file} changed while the subject_event_append call ran; nothing was written. Call it again.`,
    );
  }
  return p;
}

export const subjectEventAppendTool = defineTool({
  key: "subject_event_append",
  group: "memory",
  description: "Record what a subject experienced, as self-contained events.",
  input: AppendInput,
  effect: "write",
  basis: {
    schema: AppendBasisSchema,
    mismatch: "The approval does not match this subject_event_append call; nothing was written",
  },
  prepare(input, ctx) {
    const path = allowedSubject(ctx, input.subjectPath);
    const prepared = once(() => planEventAppend(input, ctx, path));
    return {
      effect: "write",
      targets: [`${path}/events.jsonl`],
      preview: async () => (await prepared()).preview(),
      async run(grant) {
        const files = subjectFiles(ctx, grant.writes);
        // Read and rewrite under one lock per project (named by its index file) and subject, so a
        // concurrent append in this process cannot be lost: the plan is made again inside it.
        const p = await withFileLock(`${files.indexFile}#${path}`, async () => {
          const planned = checkedPlan(grant, await planEventAppend(input, ctx, path));
          await writeAppend(files, planned);
          return planned;
        });
        const n = input.events.length;
        const text = `appended ${n} subject event${n === 1 ? "" : "s"} to ${p.file}${p.warning ? ` (warning: ${p.warning})` : ""}`;
        return {
          text,
          details: {
            subjectPath: p.path,
            sourcePath: p.file,
            appended: n,
            created: p.before === null,
            ...(p.warning ? { warning: p.warning } : {}),
          },
          change: { targets: [p.file], files: appendHashes(p), summary: text },
        };
      },
    };
  },
});
