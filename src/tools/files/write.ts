import { z } from "zod";
import { writeFileAtomic } from "../../core/atomic-write.js";
import { keepLineEndings } from "../../core/text.js";
import { defineTool } from "../define.js";
import type { ToolContext } from "../types.js";
import { authorize, readTextOrNull, unifiedDiff } from "./common.js";

const Input = z
  .object({
    path: z.string().describe("File to create or replace, relative to the project"),
    content: z.string().describe("The complete new content"),
  })
  .strict();

async function plan(input: z.infer<typeof Input>, ctx: ToolContext) {
  const r = authorize(ctx, input.path, "write");
  const before = await readTextOrNull(r);
  return { r, before, after: keepLineEndings(before, input.content) };
}

export const writeTool = defineTool({
  key: "write",
  group: "files",
  description:
    "Create a file or replace its whole content (parent folders are created; an existing file keeps its line endings). Prefer edit for small changes to existing files.",
  input: Input,
  effect: "write",
  writeTargets: (input) => [input.path],
  async preview(input, ctx) {
    const { r, before, after } = await plan(input, ctx);
    return {
      text: unifiedDiff(r.display, before, after),
      details: { path: r.display, created: before === null },
    };
  },
  async execute(input, ctx) {
    const { r, before, after } = await plan(input, ctx);
    await writeFileAtomic(r.abs, after);
    const bytes = Buffer.byteLength(after, "utf8");
    return {
      text: `${before === null ? "Created" : "Wrote"} ${r.display} (${bytes} bytes)`,
      details: { path: r.display, bytes, created: before === null },
    };
  },
});
