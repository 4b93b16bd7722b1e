import { z } from "zod";
import { removeEmptyProjectFolder, removeProjectFile } from "../../workspace/anchored-fs.js";
import { defineTool } from "../define.js";
import { authorize } from "./common.js";
import { checkUnchanged, fileSetOf } from "./file-set.js";

const Input = z
  .object({ path: z.string().min(1).describe("The file or folder to delete, relative to the project") })
  .strict();

/**
 * Delete a file or a folder with every file under it, as one change the history keeps (a revert
 * brings every file back). Folders are removed once emptied.
 */
export const deleteTool = defineTool({
  key: "delete",
  group: "files",
  description:
    "Delete a file or a folder of files of the project; recorded as one change, which a revert undoes",
  input: Input,
  effect: "write",
  async prepare(input, ctx) {
    const set = await fileSetOf(ctx, input.path, "path");
    const n = set.files.length;
    const summary = set.folder
      ? `Deleted ${set.root.display}/ (${n} file${n === 1 ? "" : "s"})`
      : `Deleted ${set.root.display}`;
    const targets = set.files.map((f) => f.r.rel);
    return {
      effect: "write",
      targets,
      preview: () => ({ text: summary, details: { path: set.root.display, files: targets } }),
      async run() {
        await checkUnchanged(ctx, set, "delete");
        for (const f of set.files) await removeProjectFile(f.r);
        for (const sub of set.folders)
          await removeEmptyProjectFolder(sub ? authorize(ctx, `${set.root.rel}/${sub}`, "write") : set.root);
        const files = set.files.map((f) => ({ path: f.r.display, before: f.sha256, after: null }));
        return {
          text: summary,
          details: { path: set.root.display, files },
          change: { targets, files, summary },
        };
      },
    };
  },
});
