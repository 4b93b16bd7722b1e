import { z } from "zod";
import { withFileLock } from "../../memory/file-lock.js";
import { EventSchema } from "../../memory/files.js";
import { planAppend, writeAppend } from "../../memory/subjects.js";
import { defineTool } from "../define.js";
import { filesBasis, filesBasisSpec, filesChange, planToRun, unifiedDiff } from "../files/common.js";
import { once } from "../once.js";
import type { ToolContext } from "../types.js";
import { allowedSubject, SubjectPath, subjectFiles } from "./access.js";

const AppendInput = z
  .object({
    subjectPath: SubjectPath,
    events: z.array(EventSchema).min(1),
  })
  .strict();

async function planEventAppend(input: z.infer<typeof AppendInput>, ctx: ToolContext, path: string) {
  const p = await planAppend(subjectFiles(ctx, "none"), path, input.events);
  const basis = filesBasis([{ display: p.file, before: p.before }]);
  return {
    ...p,
    basis,
    changed: true,
    preview: () => ({
      text: `Append ${input.events.length} event${input.events.length === 1 ? "" : "s"} to ${p.file}:\n${unifiedDiff(p.file, p.before, p.after, 0)}`,
      details: { subjectPath: path, sourcePath: p.file, events: input.events, created: p.before === null },
      basis,
    }),
  };
}

export const subjectEventAppendTool = defineTool({
  key: "subject_event_append",
  group: "memory",
  description: "Record what a subject experienced, as self-contained events.",
  input: AppendInput,
  effect: "write",
  basis: filesBasisSpec("subject_event_append"),
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
          const fresh = () => planEventAppend(input, ctx, path);
          const planned = await planToRun(grant, ctx, "subject_event_append", fresh, fresh);
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
          change: filesChange(p.basis, [{ display: p.file, after: p.after }], text),
        };
      },
    };
  },
});
