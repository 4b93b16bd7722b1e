/** A replacement of `remove` lines at line index `at` (0-based, in the old text) by `insert`. */
export interface LineEdit {
  at: number;
  remove: number;
  insert: string[];
}

/**
 * A unified diff built straight from known line edits, without re-diffing the whole file
 * (apply_patch already knows exactly what changed).
 */
export function editsToUnifiedDiff(
  oldLines: string[],
  edits: LineEdit[],
  oldName: string,
  newName: string,
  context = 3,
): string {
  const sorted = [...edits].filter((e) => e.remove > 0 || e.insert.length > 0).sort((a, b) => a.at - b.at);
  if (!sorted.length) return "";
  const groups: LineEdit[][] = [];
  for (const e of sorted) {
    const g = groups[groups.length - 1];
    const prev = g?.[g.length - 1];
    if (prev && e.at - (prev.at + prev.remove) <= 2 * context) g.push(e);
    else groups.push([e]);
  }
  const out = [`--- ${oldName}`, `+++ ${newName}`];
  let shift = 0;
  for (const g of groups) {
    const start = Math.max(0, g[0].at - context);
    const last = g[g.length - 1];
    const end = Math.min(oldLines.length, last.at + last.remove + context);
    const body: string[] = [];
    let i = start;
    let delta = 0;
    for (const e of g) {
      for (; i < e.at; i++) body.push(` ${oldLines[i]}`);
      for (let k = 0; k < e.remove; k++) body.push(`-${oldLines[i + k]}`);
      for (const line of e.insert) body.push(`+${line}`);
      i += e.remove;
      delta += e.insert.length - e.remove;
    }
    for (; i < end; i++) body.push(` ${oldLines[i]}`);
    const oldCount = end - start;
    const newCount = oldCount + delta;
    const oldStart = oldCount === 0 ? start : start + 1;
    const newStart = newCount === 0 ? start + shift : start + shift + 1;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`, ...body);
    shift += delta;
  }
  return out.join("\n");
}
