const MAX_CELL = 200;

function cellText(v: unknown): string {
  if (v === null || v === undefined) return "NULL";
  const s = typeof v === "string" ? v : String(v);
  const flat = s.replace(/\r?\n/g, "\\n").replace(/\|/g, "\\|");
  return flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL)}…` : flat;
}

/** Rows as a compact pipe-separated table: a header line, then one line per row. */
export function formatTable(columns: string[], rows: unknown[][]): string {
  const lines = [columns.map(cellText).join(" | ")];
  for (const r of rows) lines.push(r.map(cellText).join(" | "));
  return lines.join("\n");
}

/** Rows as objects keyed by column name; a repeated name gets a `:2`, `:3` … suffix. */
export function rowObjects(columns: string[], rows: unknown[][]): Record<string, unknown>[] {
  const seen = new Map<string, number>();
  const keys = columns.map((c) => {
    const n = (seen.get(c) ?? 0) + 1;
    seen.set(c, n);
    return n === 1 ? c : `${c}:${n}`;
  });
  return rows.map((r) => Object.fromEntries(keys.map((k, i) => [k, r[i]])));
}
