// The window of a session's branch the chat holds: at most WINDOW entries, however long the
// session. Reading older entries drops the newest beyond it (and the reverse), so the DOM stays
// bounded; the cursors say where the entries left out begin. Pure, for the unit tests.
import type { Entry } from "./api.js";

/** Entries the chat holds at most. */
export const WINDOW = 300;

export interface ChatWindow {
  entries: Entry[];
  /** The `before` cursor of the entries above the window; null at the root. */
  older: string | null;
  /** The `after` cursor of the entries below it; null when the window reaches the leaf. */
  newer: string | null;
}

/** The window with `page` (read before its first entry) put above it, its newest entries dropped past WINDOW. */
export function withOlder(w: ChatWindow, page: Entry[], older: string | null, cap = WINDOW): ChatWindow {
  const entries = page.concat(w.entries);
  if (entries.length <= cap) return { entries, older, newer: w.newer };
  const kept = entries.slice(0, cap);
  return { entries: kept, older, newer: kept[kept.length - 1]!.id };
}

/** The window with `page` (read after its last entry) put below it, its oldest entries dropped past WINDOW. */
export function withNewer(w: ChatWindow, page: Entry[], newer: string | null, cap = WINDOW): ChatWindow {
  const entries = w.entries.concat(page);
  if (entries.length <= cap) return { entries, older: w.older, newer };
  const kept = entries.slice(entries.length - cap);
  return { entries: kept, older: kept[0]!.id, newer };
}
