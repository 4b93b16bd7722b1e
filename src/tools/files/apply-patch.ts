import { stat } from "node:fs/promises";
import { z } from "zod";
import { removeProjectFile, writeProjectFile } from "../../workspace/anchored-fs.js";
import type { ResolvedPath } from "../../workspace/paths.js";
import { defineTool } from "../define.js";
import type { ToolContext } from "../types.js";
import {
  authorize,
  filePreview,
  filesBasis,
  planToRun,
  readTextOrNull,
  unifiedDiff,
  type WriteContext,
  writeScope,
} from "./common.js";
import { commitChanges, type FileChange, type PatchFiles, planPatch } from "./patch/apply.js";
import { parsePatch, patchTargets } from "./patch/parse.js";

const Input = z
  .object({
    patch: z
      .string()
      .describe(
        "The whole patch: *** Begin Patch, then *** Add File: / *** Delete File: / *** Update File: (optionally *** Move to:) sections with @@ chunks of ' ', '-', '+' lines, then *** End Patch",
      ),
  })
  .strict();

/**
 * A patch's project files, each read through its own checked descriptor and written or deleted
 * through its checked parent folder, where the call's mode lets it write (writeScope).
 */
export function projectPatchFiles(ctx: WriteContext): PatchFiles<ResolvedPath> {
  return {
    async read(r) {
      // By name only to tell a folder; a file is read through its own descriptor, and checked there.
      if ((await stat(r.abs).catch(() => null))?.isDirectory()) return "dir";
      return readTextOrNull(r);
    },
    write: (r, text) => writeProjectFile(r, text, writeScope(ctx)),
    remove: (r) => removeProjectFile(r, writeScope(ctx)),
  };
}

async function plan(patch: string, ctx: ToolContext) {
  const ops = parsePatch(patch);
  const changes = await planPatch(ops, (p) => authorize(ctx, p, "write"), projectPatchFiles(ctx));
  const files = changes.map((c) => ({ path: c.target.display, action: c.action }));
  const basis = filesBasis(changes.map((c) => ({ display: c.target.display, before: c.before })));
  return {
    changes,
    files,
    basis,
    changed: changes.length > 0,
    preview: () => ({ text: diffOf(changes), details: { files }, basis }),
  };
}

function diffOf(changes: FileChange<ResolvedPath>[]): string {
  return changes.map((c) => c.diff ?? unifiedDiff(c.target.display, c.before, c.after)).join("\n");
}

export const applyPatchTool = defineTool({
  key: "apply_patch",
  group: "files",
  description: `Apply a Codex-style patch touching one or more files, all or nothing: if any part fails, no file changes.
Format:
*** Begin Patch
*** Add File: path/new.md
+line of the new file
*** Update File: path/old.md
*** Move to: path/renamed.md   (optional)
@@ optional anchor line (e.g. a heading) to narrow the search
 context line (unchanged)
-removed line
+added line
*** Delete File: path/gone.md
*** End Patch
Give about three lines of context around each change; add an @@ anchor when the context is not unique.`,
  input: Input,
  effect: "write",
  writeTargets: (input) => patchTargets(input.patch),
  async preview(input, ctx) {
    return filePreview(await plan(input.patch, ctx));
  },
  async execute(input, ctx) {
    const targets = patchTargets(input.patch);
    const { changes, files, changed } = await planToRun(ctx, "apply_patch", targets, () =>
      plan(input.patch, ctx),
    );
    if (!changed)
      return { text: "Unchanged: the patch leaves every file as it is", details: { files, diff: "" } };
    await commitChanges(changes, projectPatchFiles(ctx));
    const summary = files
      .map((f) => `${f.action === "add" ? "A" : f.action === "delete" ? "D" : "M"} ${f.path}`)
      .join("\n");
    const diff = diffOf(changes);
    return { text: `Patch applied:\n${summary}\n\n${diff}`, details: { files, diff } };
  },
});
