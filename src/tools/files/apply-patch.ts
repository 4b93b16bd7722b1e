import { stat } from "node:fs/promises";
import { z } from "zod";
import { removeProjectFile, writeProjectFile } from "../../workspace/anchored-fs.js";
import type { ResolvedPath } from "../../workspace/paths.js";
import { defineTool } from "../define.js";
import { once } from "../once.js";
import type { ToolContext, WriteGrant } from "../types.js";
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
import { commitChanges, type FileChange, type PatchFiles, planPatch } from "./patch/apply.js";
import { parsePatch, patchTargets } from "./patch/parse.js";

const Input = z
  .object({
    patch: z.string(),
  })
  .strict();

/**
 * A patch's project files, each read through its own checked descriptor and written or deleted
 * through its checked parent folder, where the call's grant lets it write (writeScope).
 */
export function projectPatchFiles(
  ctx: Pick<ToolContext, "mode" | "project">,
  writes: WriteGrant,
): PatchFiles<ResolvedPath> {
  return {
    async read(r) {
      // By name only to tell a folder; a file is read through its own descriptor, and checked there.
      if ((await stat(r.abs).catch(() => null))?.isDirectory()) return "dir";
      return readTextOrNull(r);
    },
    write: (r, text) => writeProjectFile(r, text, writeScope(writes, ctx)),
    remove: (r) => removeProjectFile(r, writeScope(writes, ctx)),
  };
}

async function plan(patch: string, ctx: ToolContext) {
  const ops = parsePatch(patch);
  const changes = await planPatch(ops, (p) => authorize(ctx, p, "write"), projectPatchFiles(ctx, "none"));
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
  description: `Apply a Codex-style patch to one or more files, all or nothing:
*** Begin Patch
*** Add File: new.md
+line
*** Update File: old.md
*** Move to: renamed.md   (optional)
@@ anchor line, when the context is not unique
 context (about three lines)
-removed
+added
*** Delete File: gone.md
*** End Patch`,
  input: Input,
  effect: "write",
  basis: filesBasisSpec("apply_patch"),
  prepare(input, ctx) {
    const prepared = once(() => plan(input.patch, ctx));
    return {
      effect: "write",
      targets: patchTargets(input.patch),
      preview: async () => filePreview(await prepared()),
      async run(grant) {
        const { changes, files, changed, basis } = await planToRun(grant, ctx, "apply_patch", prepared, () =>
          plan(input.patch, ctx),
        );
        if (!changed)
          return {
            text: "Unchanged: the patch leaves every file as it is",
            details: { files, diff: "" },
            change: "unchanged",
          };
        await commitChanges(changes, projectPatchFiles(ctx, grant.writes));
        const summary = files
          .map((f) => `${f.action === "add" ? "A" : f.action === "delete" ? "D" : "M"} ${f.path}`)
          .join("\n");
        const diff = diffOf(changes);
        return {
          text: `Patch applied:\n${summary}\n\n${diff}`,
          details: { files, diff },
          change: filesChange(
            basis,
            changes.map((c) => ({ display: c.target.display, after: c.after })),
            `Patch applied: ${summary.replace(/\n/g, ", ")}`,
          ),
        };
      },
    };
  },
});
