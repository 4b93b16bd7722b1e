import type { SearchResult } from "./schema.js";
import { markSnippet } from "./snippet.js";

/** A result as the CLI and the agent tool print it: `path:line` (chapter) then the snippet, matches in `**…**`. */
export function formatResult(r: SearchResult): string {
  if (!r.hits.length) return `No line matches ${JSON.stringify(r.query)}.`;
  const rows = r.hits.map((h) => {
    const where = h.chapter ? ` (chapter ${h.chapter}${h.title ? `: ${h.title}` : ""})` : "";
    return `${h.path}:${h.line}${where}\n  ${markSnippet(h)}`;
  });
  const more = r.more
    ? `\n[More lines match than these ${r.hits.length}: narrow the query or raise the limit.]`
    : "";
  return `${r.hits.length} line${r.hits.length === 1 ? "" : "s"} match ${JSON.stringify(r.query)}:\n\n${rows.join("\n")}${more}`;
}
