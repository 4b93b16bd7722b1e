import { realpathSync, rmdirSync } from "node:fs";
import { dirname, join, sep } from "node:path";

/**
 * Remove the folders that removing these files (project-relative paths, now absent) left empty,
 * from the deepest up, stopping at the first that still holds something. Only such folders go:
 * `rmdir` refuses a folder with anything in it, and a folder reached through a link out of the
 * project is left alone.
 */
export function removeEmptiedFolders(root: string, realRoot: string, removed: readonly string[]): void {
  const folders = new Set<string>();
  for (const p of removed) for (let d = dirname(p); d !== "." && d !== ""; d = dirname(d)) folders.add(d);
  // Deepest first, so a parent is tried once its children are gone.
  for (const d of [...folders].sort((a, b) => b.split("/").length - a.split("/").length)) {
    const abs = join(root, d);
    try {
      if (!realpathSync(abs).startsWith(realRoot + sep)) continue;
      rmdirSync(abs);
    } catch {
      // Not empty, already gone, or not a folder: it stays as it is.
    }
  }
}
