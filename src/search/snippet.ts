/** A highlighted stretch of one line: `[start, end)` offsets into `snippet`. */
export interface Snippet {
  snippet: string;
  highlights: [number, number][];
}

/** Characters of context shown on each side of the first match. */
const CONTEXT = 60;
/** The longest snippet, however long the line. */
const MAX_SNIPPET = 240;

/**
 * The line's snippet when every pattern matches it (else null): a window around the first match,
 * cut at the line's ends or marked with `…`, with every match inside it highlighted.
 */
export function snippetOf(line: string, patterns: readonly RegExp[]): Snippet | null {
  const ranges: [number, number][] = [];
  for (const p of patterns) {
    p.lastIndex = 0;
    let found = false;
    for (let m = p.exec(line); m; m = p.exec(line)) {
      if (m[0] === "") {
        p.lastIndex++;
        continue;
      }
      found = true;
      ranges.push([m.index, m.index + m[0].length]);
    }
    if (!found) return null;
  }
  ranges.sort((a, b) => a[0] - b[0]);
  const first = ranges[0]!;
  const from = Math.max(0, first[0] - CONTEXT);
  const to = Math.min(line.length, Math.max(first[1] + CONTEXT, from + MAX_SNIPPET / 2), from + MAX_SNIPPET);
  const lead = from > 0 ? "…" : "";
  const snippet = `${lead}${line.slice(from, to)}${to < line.length ? "…" : ""}`;
  const highlights: [number, number][] = [];
  for (const [s, e] of ranges) {
    if (s < from || e > to) continue;
    const last = highlights.at(-1);
    const start = s - from + lead.length;
    const end = e - from + lead.length;
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else highlights.push([start, end]);
  }
  return { snippet, highlights };
}

/** A snippet as text with its highlights in `**…**` (how the CLI and the agent tool show it). */
export function markSnippet(s: Snippet): string {
  let out = "";
  let at = 0;
  for (const [a, b] of s.highlights) {
    out += `${s.snippet.slice(at, a)}**${s.snippet.slice(a, b)}**`;
    at = b;
  }
  return out + s.snippet.slice(at);
}
