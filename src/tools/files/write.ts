import { z } from "zod";
import { keepLineEndings } from "../../core/text.js";
import { writeProjectFile } from "../../workspace/anchored-fs.js";
import { defineTool } from "../define.js";
import { once } from "../once.js";
import type { ToolContext } from "../types.js";
import {
  authorize,
  filePreview,
  filesBasis,
  filesBasisSpec,
  filesChange,
  planToRun,
  readTextOrNull,
  unifiedDiff,
  writeScope,
} from "./common.js";

const Input = z
  .object({
    path: z.string(),
    content: z.string(),
  })
  .strict();

async function plan(input: z.infer<typeof Input>, ctx: ToolContext) {
  const r = authorize(ctx, input.path, "write");
  const before = await readTextOrNull(r);
  const after = keepLineEndings(before, input.content);
  const basis = filesBasis([{ display: r.display, before }]);
  return {
    r,
    before,
    after,
    basis,
    changed: after !== before,
    preview: () => ({
      text: unifiedDiff(r.display, before, after),
      details: { path: r.display, created: before === null },
      basis,
    }),
  };
}

export const writeTool = defineTool({
  key: "write",
  group: "files",
  description: "Create a file or replace all of it (folders are created). Prefer edit for small changes.",
  input: Input,
  effect: "write",
  basis: filesBasisSpec("write"),
  prepare(input, ctx) {
    const prepared = once(() => plan(input, ctx));
    return {
      effect: "write",
      targets: [input.path],
      preview: async () => filePreview(await prepared()),
      async run(grant) {
        const { r, before, after, changed, basis } = await planToRun(grant, ctx, "write", prepared, () =>
          plan(input, ctx),
        );
        const bytes = Buffer.byteLength(after, "utf8");
        if (!changed) {
          return {
            text: `Unchanged: ${r.display} already has this content (${bytes} bytes)`,
            details: { path: r.display, bytes, created: false, unchanged: true },
            change: "unchanged",
          };
        }
        await writeProjectFile(r, after, writeScope(grant.writes, ctx));
        const text = `${before === null ? "Created" : "Wrote"} ${r.display} (${bytes} bytes)`;
        return {
          text,
          details: { path: r.display, bytes, created: before === null },
          change: filesChange(basis, [{ display: r.display, after }], text),
        };
      },
    };
  },
});
