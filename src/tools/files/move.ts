import { lstat } from "node:fs/promises";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import {
  removeEmptyProjectFolder,
  removeProjectFile,
  writeProjectFile,
} from "../../workspace/anchored-fs.js";
import { defineTool } from "../define.js";
import type { ToolContext } from "../types.js";
import { authorize } from "./common.js";
import { checkUnchanged, type FileSet, fileSetOf } from "./file-set.js";

const Input = z
  .object({
    from: z.string().min(1).describe("The file or folder to move or rename, relative to the project"),
    to: z.string().min(1).describe("Its new path (nothing may be there yet)"),
  })
  .strict();

interface MovePlan {
  set: FileSet;
  /** Each file's new place, in the order of `set.files`. */
  dest: ReturnType<typeof authorize>[];
  summary: string;
}

async function plan(input: z.infer<typeof Input>, ctx: ToolContext): Promise<MovePlan> {
  const set = await fileSetOf(ctx, input.from, "from");
  const to = authorize(ctx, input.to, "write");
  if (to.project.name !== set.root.project.name)
    throw new NbError("invalid_input", `${to.display} is not in this project`, {
      fields: [{ pointer: "/to", message: "must be a path of this project" }],
    });
  if (to.rel === set.root.rel || to.rel.startsWith(`${set.root.rel}/`))
    throw new NbError("invalid_input", `${set.root.display} cannot be moved into itself`, {
      fields: [{ pointer: "/to", message: "must be outside the folder moved" }],
    });
  if (await lstat(to.abs).catch(() => null))
    throw new NbError("conflict", `${to.display} exists already; nothing was moved`, {
      fields: [{ pointer: "/to", message: "a new path: nothing may be there yet" }],
    });
  const dest = set.files.map((f) => (set.folder ? authorize(ctx, `${to.rel}/${f.sub}`, "write") : to));
  const n = set.files.length;
  const what = set.folder ? `${set.root.display}/ (${n} file${n === 1 ? "" : "s"})` : set.root.display;
  return { set, dest, summary: `Moved ${what} to ${to.display}${set.folder ? "/" : ""}` };
}

/**
 * Move or rename a file or folder as one change: each file is written at its new place, then removed
 * from the old, then the emptied folders go. The history records both sides, so a revert of the
 * change puts every file back where it was.
 */
export const moveTool = defineTool({
  key: "move",
  group: "files",
  description:
    "Move or rename a file or a folder of files inside the project (the new path must be free); recorded as one change",
  input: Input,
  effect: "write",
  async prepare(input, ctx) {
    const p = await plan(input, ctx);
    const targets = [...p.set.files.map((f) => f.r.rel), ...p.dest.map((d) => d.rel)];
    return {
      effect: "write",
      targets,
      preview: () => ({ text: p.summary, details: { from: p.set.root.display, to: input.to } }),
      async run() {
        await checkUnchanged(ctx, p.set, "move");
        for (const [i, f] of p.set.files.entries()) await writeProjectFile(p.dest[i]!, f.bytes);
        for (const f of p.set.files) await removeProjectFile(f.r);
        for (const sub of p.set.folders)
          await removeEmptyProjectFolder(
            sub ? authorize(ctx, `${p.set.root.rel}/${sub}`, "write") : p.set.root,
          );
        const files = p.set.files.flatMap((f, i) => [
          { path: f.r.display, before: f.sha256, after: null },
          { path: p.dest[i]!.display, before: null, after: f.sha256 },
        ]);
        return {
          text: p.summary,
          details: { from: p.set.root.display, to: authorize(ctx, input.to, "write").display, files },
          change: { targets, files, summary: p.summary },
        };
      },
    };
  },
});
