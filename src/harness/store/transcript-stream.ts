import type { EntryPage, PageQuery } from "./pages.js";
import type { Entry } from "./schema.js";
import { renderEntries } from "./transcript.js";

/** How many entries a step may hold back before it is written with its calls shown pending. */
const MAX_HELD = 2000;

/** The index of the latest assistant entry whose calls have no result among the entries after it, or -1. */
function openStep(entries: readonly Entry[]): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e.kind !== "assistant") continue;
    const answered = new Set<string>();
    for (const r of entries.slice(i + 1)) if (r.kind === "tool_result") answered.add(r.data.callId);
    return e.data.toolCalls.some((c) => !answered.has(c.id)) ? i : -1;
  }
  return -1;
}

/**
 * The readable lines of an active branch, page by page from the root, so memory follows a page,
 * not the session. A step whose results are on the next page waits for it, so its calls show
 * their results as in a transcript rendered whole.
 */
export function* transcriptChunks(page: (q: PageQuery) => EntryPage, pageSize = 500): Generator<string> {
  let held: Entry[] = [];
  let p = page({ oldest: true, limit: pageSize });
  for (;;) {
    const entries = held.concat(p.entries);
    if (p.newer === null) {
      yield renderEntries(entries);
      return;
    }
    const open = openStep(entries);
    const cut = open >= 0 && entries.length - open <= MAX_HELD ? open : -1;
    held = cut >= 0 ? entries.slice(cut) : [];
    yield renderEntries(cut >= 0 ? entries.slice(0, cut) : entries);
    p = page({ after: p.newer, limit: pageSize });
  }
}
