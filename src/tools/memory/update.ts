import { z } from "zod";
import { NbError } from "../../core/errors.js";
import type { Harness } from "../../harness/loop.js";
import {
  applyMemoryPatch,
  describeChanges,
  type MemoryFile,
  memoryChanges,
  readMemoryFile,
} from "../../memory/curate.js";
import { type MemoryPatch, MemoryPatchSchema } from "../../memory/curate-schema.js";
import { withFileLock } from "../../memory/file-lock.js";
import { type SubjectMemory, serializeMemories } from "../../memory/files.js";
import type { SubjectFiles } from "../../memory/subjects.js";
import { defineTool } from "../define.js";
import { contentHash, unifiedDiff } from "../files/common.js";
import type { BasisSpec, ToolContext, ToolPreview, ToolResult } from "../types.js";
import { allowedSubject, SubjectPath, subjectFiles } from "./access.js";

const KEY = "subject_memory_update";
const ATTEMPTS = 2;

const UpdateInput = z
  .object({
    subjectPath: SubjectPath,
    facts: z
      .array(z.string().trim().min(1, "must not be empty"))
      .min(1)
      .describe(
        "What the subject learned or came to believe this turn, as plain statements from its point of view (not file operations); the curator decides how they change its memory",
      ),
  })
  .strict();

/** A harness the curator runs in, and how to let it go when the call is done. */
export interface CuratorHarness {
  harness: Harness;
  close(): void;
}

/** Where a call gets the harness for its curator run. */
export type OpenCuratorHarness = (ctx: ToolContext) => Promise<CuratorHarness>;

/** The default: the harness the door's opener lends (ToolPorts.curator). */
const openLentHarness: OpenCuratorHarness = async (ctx) => {
  if (!ctx.ports?.curator)
    throw new NbError(
      "unsupported",
      `${KEY} needs a harness to run its curator in, which this door does not offer`,
    );
  return ctx.ports.curator(ctx);
};

/** What one curation came to. Only `updated` has anything to write. */
type Curation = { attempts: number; summary: string; curatorSessionId: string } & (
  | { status: "updated"; patch: MemoryPatch; memories: SubjectMemory[] }
  | { status: "unchanged" }
  | { status: "needs_review"; reason: string }
);

const FIRST_PROMPT =
  "Fold the facts above into this subject's memory: call report_result with a one-line summary and data.patch (an empty patch if nothing lasting changes).";

function retryPrompt(reason: string): string {
  return `Your patch was refused and nothing was written:\n${reason}\n\nCall report_result again with a complete patch against the ORIGINAL current memories listed in your instructions (your previous patch was discarded, not applied).`;
}

/**
 * Run the memory.curator profile as an internal child session (system_only, so created with
 * Harness.createInternalSession) and check its patch on a copy; a refused patch is sent back
 * once with the reason. The session is archived and unlinked afterwards: a record, not an agent.
 */
async function curate(
  ctx: ToolContext,
  open: OpenCuratorHarness,
  mem: MemoryFile,
  facts: string[],
): Promise<Curation> {
  if (ctx.project === null)
    throw new NbError("not_allowed", "Project not open: subject memory lives in a project");
  const { harness, close } = await open(ctx);
  try {
    const session = harness.createInternalSession({
      profileKey: "memory.curator",
      project: ctx.project.name,
      title: `Memory curation: ${mem.path}`,
      initial: { subjectPath: mem.path, facts, currentMemories: mem.memories },
      ...(ctx.session ? { parentSessionId: ctx.session.id } : {}),
    });
    try {
      let message = FIRST_PROMPT;
      let reason = "";
      let summary = "";
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        const run = await harness.invoke(session.id, { mode: "prompt", message, signal: ctx.signal });
        if (run.status === "aborted" || ctx.signal?.aborted) {
          throw new NbError("aborted", `The memory curation was aborted; ${mem.file} was not changed`);
        }
        const base = { attempts: attempt, curatorSessionId: session.id };
        if (run.status === "completed" && run.data !== undefined) {
          summary = run.finalMessage;
          const patch = (run.data as { patch: unknown }).patch;
          const r = applyMemoryPatch(mem.memories, patch);
          if (r.ok && !r.changed) return { ...base, summary, status: "unchanged" };
          if (r.ok)
            return { ...base, summary, status: "updated", patch: patch as MemoryPatch, memories: r.memories };
          reason = r.reason;
        } else {
          reason = run.error
            ? `the curator run failed (${run.error.code}): ${run.error.message}`
            : `the curator run ended (${run.status}) without reporting a patch through report_result`;
        }
        message = retryPrompt(reason);
      }
      return { attempts: ATTEMPTS, curatorSessionId: session.id, summary, status: "needs_review", reason };
    } finally {
      harness.store.setStatus(session.id, "archived");
      // The caller keeps the record (parentSessionId) but no live link: the curator is not an agent
      // it holds, so it neither counts against its linked-agent cap nor can be invoked by it.
      if (session.parentSessionId !== null) harness.store.detachLink(session.id);
    }
  } finally {
    close();
  }
}

/** What an approval of a previewed update is pinned to: the file as it was, and the exact patch shown. */
const UpdateBasisSchema = z
  .object({
    tool: z.literal(KEY),
    sourcePath: z.string(),
    sha256: z.string().nullable(),
    patch: MemoryPatchSchema,
  })
  .strict();
type UpdateBasis = z.infer<typeof UpdateBasisSchema>;

const UPDATE_BASIS: BasisSpec<UpdateBasis> = {
  schema: UpdateBasisSchema,
  mismatch: `The approval does not match this ${KEY} call; nothing was written`,
};

/** The per-subject lock subject_event_append takes too, so no read-modify-write of a subject interleaves. */
function subjectLock(files: SubjectFiles, path: string): string {
  return `${files.indexFile}#${path}`;
}

function updatedResult(mem: MemoryFile, after: SubjectMemory[], extra: Record<string, unknown>): ToolResult {
  const changes = memoryChanges(mem.memories, after);
  const summary = typeof extra.summary === "string" && extra.summary ? ` Curator: ${extra.summary}` : "";
  const head = `updated ${mem.file}: ${describeChanges(changes)} (${after.length} topic${after.length === 1 ? "" : "s"}).`;
  return {
    text: `${head}${summary}`,
    change: {
      targets: [mem.file],
      files: [
        { path: mem.file, before: contentHash(mem.text), after: contentHash(serializeMemories(after)) },
      ],
      summary: head,
    },
    details: {
      status: "updated",
      subjectPath: mem.path,
      sourcePath: mem.file,
      ...extra,
      memoryCount: after.length,
      changes,
    },
  };
}

/** The result of a curation that writes nothing. */
function noWriteResult(mem: MemoryFile, c: Curation): ToolResult {
  const common = {
    subjectPath: mem.path,
    sourcePath: mem.file,
    attempts: c.attempts,
    summary: c.summary,
    curatorSessionId: c.curatorSessionId,
  };
  if (c.status === "needs_review") {
    return {
      text: `needs_review: the curator's patch was refused ${c.attempts} times, so ${mem.file} was not changed. Last problem: ${c.reason}`,
      change: "unchanged",
      details: { status: "needs_review", reason: c.reason, ...common },
    };
  }
  return {
    text: `unchanged: ${mem.file} stays as it is (the facts change no lasting view).${c.summary ? ` Curator: ${c.summary}` : ""}`,
    change: "unchanged",
    details: { status: "unchanged", ...common, memoryCount: mem.memories.length },
  };
}

/** Write a curated list unless memory.jsonl changed since it was read (optimistic concurrency). */
async function writeIfUnchanged(files: SubjectFiles, mem: MemoryFile, after: SubjectMemory[]): Promise<void> {
  await withFileLock(subjectLock(files, mem.path), async () => {
    if ((await files.read(mem.file)) !== mem.text) {
      throw new NbError(
        "conflict",
        `${mem.file} changed while the curator was working, so nothing was written. Call ${KEY} again to curate against the memory as it is now.`,
      );
    }
    await files.write(mem.file, serializeMemories(after));
  });
}

/** Run exactly the patch of the approved preview, on exactly the file it was made from. */
async function applyApproved(b: UpdateBasis, path: string, files: SubjectFiles): Promise<ToolResult> {
  if (b.sourcePath !== `${path}/memory.jsonl`) throw new NbError("conflict", UPDATE_BASIS.mismatch);
  return withFileLock(subjectLock(files, path), async () => {
    const mem = await readMemoryFile(files, path);
    if (contentHash(mem.text) !== b.sha256) {
      throw new NbError(
        "conflict",
        `${mem.file} changed after the preview the user approved, so nothing was written. Call ${KEY} again to curate against the memory as it is now.`,
      );
    }
    const r = applyMemoryPatch(mem.memories, b.patch);
    if (!r.ok)
      throw new NbError(
        "conflict",
        `The approved patch no longer applies (${r.reason}); nothing was written`,
      );
    await files.write(mem.file, serializeMemories(r.memories));
    return updatedResult(mem, r.memories, { approved: true, patch: b.patch });
  });
}

/** `subject_memory_update`, running its curator in the harness `open` gives. */
export function makeSubjectMemoryUpdateTool(open: OpenCuratorHarness) {
  return defineTool({
    key: KEY,
    group: "memory",
    description:
      "Update a subject's memory (simulation/subjects/<id>/memory.jsonl: its current view per topic) with facts it learned this turn. A curator agent turns the facts into a JSON Patch of the memories; the patch is validated (two attempts), then written. Returns status updated, unchanged or needs_review (nothing written). The subject must exist.",
    input: UpdateInput,
    effect: "write",
    basis: UPDATE_BASIS,
    prepare(input, ctx) {
      const path = allowedSubject(ctx, input.subjectPath);
      // A preview that finds nothing to write lets the call run at once, granted no writes: its
      // curation is kept for that run to report, instead of asking the curator a second time.
      let kept: { mem: MemoryFile; curation: Curation } | undefined;
      return {
        effect: "write",
        targets: [`${path}/memory.jsonl`],
        async preview(): Promise<ToolPreview<UpdateBasis>> {
          const mem = await readMemoryFile(subjectFiles(ctx, "none"), path);
          const curation = await curate(ctx, open, mem, input.facts);
          if (curation.status !== "updated") {
            kept = { mem, curation };
            const { text, details } = noWriteResult(mem, curation);
            return { text, details, unchanged: true };
          }
          const after = serializeMemories(curation.memories);
          const changes = memoryChanges(mem.memories, curation.memories);
          return {
            text: [
              `Update ${mem.file}: ${describeChanges(changes)}.`,
              curation.summary ? `Curator: ${curation.summary}` : "",
              `JSON Patch:\n${JSON.stringify(curation.patch, null, 2)}`,
              unifiedDiff(mem.file, mem.text, after),
            ]
              .filter(Boolean)
              .join("\n"),
            details: {
              subjectPath: mem.path,
              sourcePath: mem.file,
              summary: curation.summary,
              attempts: curation.attempts,
              curatorSessionId: curation.curatorSessionId,
              patch: curation.patch,
              changes,
            },
            basis: { tool: KEY, sourcePath: mem.file, sha256: contentHash(mem.text), patch: curation.patch },
          };
        },
        async run(grant) {
          const files = subjectFiles(ctx, grant.writes);
          if (grant.approval?.basis !== undefined) return applyApproved(grant.approval.basis, path, files);
          if (grant.writes === "none") {
            if (!kept) {
              throw new NbError(
                "approval_required",
                `${KEY} writes memory.jsonl and the session is in ${ctx.mode} mode; nothing was written.`,
              );
            }
            return noWriteResult(kept.mem, kept.curation);
          }
          const mem = await readMemoryFile(files, path);
          const c = await curate(ctx, open, mem, input.facts);
          if (c.status !== "updated") return noWriteResult(mem, c);
          await writeIfUnchanged(files, mem, c.memories);
          return updatedResult(mem, c.memories, {
            attempts: c.attempts,
            summary: c.summary,
            curatorSessionId: c.curatorSessionId,
          });
        },
      };
    },
  });
}

/** `subject_memory_update` with the curator in the harness the door lends. */
export const subjectMemoryUpdateTool = makeSubjectMemoryUpdateTool(openLentHarness);
