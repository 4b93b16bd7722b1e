import { z } from "zod";
import { withFileLock } from "../../memory/file-lock.js";
import { EventSchema } from "../../memory/files.js";
import { planAppend } from "../../memory/subjects.js";
import { defineTool } from "../define.js";
import { filesBasis, planToRun, unifiedDiff } from "../files/common.js";
import type { ToolContext } from "../types.js";
import { allowedSubject, SubjectPath, subjectFiles } from "./access.js";

const AppendInput = z
  .object({
    subjectPath: SubjectPath,
    events: z
      .array(EventSchema)
      .min(1)
      .describe("What the subject experienced, each {text, tick?, time?}; text is self-contained"),
  })
  .strict();

async function planEventAppend(input: z.infer<typeof AppendInput>, ctx: ToolContext) {
  const path = allowedSubject(ctx, input.subjectPath);
  const p = await planAppend(subjectFiles(ctx), path, input.events);
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
  description:
    "Append events to a subject's episodic memory (simulation/subjects/<id>/events.jsonl; the subject's folder is created if missing). Each event is one self-contained line {text, tick?, time?}.",
  input: AppendInput,
  effect: "write",
  async preview(input, ctx) {
    return (await planEventAppend(input, ctx)).preview();
  },
  async execute(input, ctx) {
    const path = allowedSubject(ctx, input.subjectPath);
    const files = subjectFiles(ctx);
    // Read and rewrite under one lock per project (named by its index file) and subject, so a
    // concurrent append in this process cannot be lost.
    const p = await withFileLock(`${files.indexFile}#${path}`, async () => {
      const planned = await planToRun(ctx, "subject_event_append", null, () => planEventAppend(input, ctx));
      await files.write(planned.file, planned.after);
      return planned;
    });
    const n = input.events.length;
    return {
      text: `appended ${n} subject event${n === 1 ? "" : "s"} to ${p.file}`,
      details: { subjectPath: p.path, sourcePath: p.file, appended: n, created: p.before === null },
    };
  },
});
