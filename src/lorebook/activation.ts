import type { LoreEntry } from "./entries.js";
import { findKey } from "./match.js";

/** A text the keys are looked for in, named by where it came from (the brief, recent messages, the chapter). */
export interface WorkingText {
  source: string;
  text: string;
}

/** Why an entry was brought in. */
export type ActivationReason =
  | { kind: "always" }
  | { kind: "key"; key: string; source: string }
  | { kind: "recursion"; key: string; via: string; depth: number };

export interface ActivatedEntry {
  entry: LoreEntry;
  reason: ActivationReason;
  /** The entry as it goes into the prompt (text, and the subject's state when it has one). */
  text: string;
  tokens: number;
}

export interface Activation {
  /** In the cut order, each within the budget. */
  included: ActivatedEntry[];
  /** Activated, but past the budget (in the cut order). */
  cut: ActivatedEntry[];
}

export interface ActivationOptions {
  /** Tokens the included entries may take together; 0 includes none. */
  budgetTokens: number;
  /** Rounds in which an included entry's text may activate others (0: none). */
  depth: number;
  countTokens: (text: string) => number;
  /** The entry as the prompt shows it (default: its title, path and text). */
  render?: (entry: LoreEntry) => string;
}

interface Hit {
  entry: LoreEntry;
  reason: ActivationReason;
  /** Round it was found in (0: the working text), then the text it was found in and where. */
  round: number;
  textIndex: number;
  offset: number;
}

export function renderEntry(entry: LoreEntry): string {
  return `### ${entry.title} (${entry.path})\n${entry.body}`;
}

/** The first key of `entry` in any of `texts` (lower-cased), in text order, then offset. */
function firstHit(
  entry: LoreEntry,
  texts: string[],
): { key: string; textIndex: number; offset: number } | null {
  for (let t = 0; t < texts.length; t++) {
    let best = -1;
    let key = "";
    for (const k of entry.keys) {
      const at = findKey(texts[t], k);
      if (at >= 0 && (best < 0 || at < best)) {
        best = at;
        key = k.key;
      }
    }
    if (best >= 0) return { key, textIndex: t, offset: best };
  }
  return null;
}

/**
 * Which entries the working text brings in, and which of those fit the budget. An entry is
 * activated when it is `always`, or one of its keys or aliases occurs in a working text; then, for
 * `depth` rounds, the text of the entries activated in the round before may activate others.
 * The budget is applied afterwards, in this cut order: `always` entries first, then higher
 * `priority`, then the earlier round, then the earlier match (working texts in the order given,
 * then the offset), then the path. Entries are taken in that order while they fit; the first that
 * does not fit and every one after it are cut, so a lower-ranked entry never takes the place of a
 * higher one.
 */
export function activateCanon(
  entries: readonly LoreEntry[],
  working: readonly WorkingText[],
  opts: ActivationOptions,
): Activation {
  const texts = working.map((w) => w.text.toLowerCase());
  const hits = new Map<string, Hit>();
  let round: Hit[] = [];
  for (const entry of entries) {
    if (entry.always) {
      const hit = { entry, reason: { kind: "always" as const }, round: 0, textIndex: -1, offset: 0 };
      hits.set(entry.path, hit);
      round.push(hit);
      continue;
    }
    const h = firstHit(entry, texts);
    if (!h) continue;
    const hit: Hit = {
      entry,
      reason: { kind: "key", key: h.key, source: working[h.textIndex].source },
      round: 0,
      textIndex: h.textIndex,
      offset: h.offset,
    };
    hits.set(entry.path, hit);
    round.push(hit);
  }
  for (let depth = 1; depth <= opts.depth && round.length > 0; depth++) {
    const bodies = round.map((h) => h.entry.body.toLowerCase());
    const next: Hit[] = [];
    for (const entry of entries) {
      if (hits.has(entry.path)) continue;
      const h = firstHit(entry, bodies);
      if (!h) continue;
      const via = round[h.textIndex].entry.path;
      const hit: Hit = {
        entry,
        reason: { kind: "recursion", key: h.key, via, depth },
        round: depth,
        textIndex: h.textIndex,
        offset: h.offset,
      };
      hits.set(entry.path, hit);
      next.push(hit);
    }
    round = next;
  }
  const ordered = [...hits.values()].sort(
    (a, b) =>
      Number(b.entry.always) - Number(a.entry.always) ||
      b.entry.priority - a.entry.priority ||
      a.round - b.round ||
      a.textIndex - b.textIndex ||
      a.offset - b.offset ||
      (a.entry.path < b.entry.path ? -1 : a.entry.path > b.entry.path ? 1 : 0),
  );
  const render = opts.render ?? renderEntry;
  const out: Activation = { included: [], cut: [] };
  let used = 0;
  for (const h of ordered) {
    const text = render(h.entry);
    const tokens = opts.countTokens(text);
    const item = { entry: h.entry, reason: h.reason, text, tokens };
    if (out.cut.length === 0 && used + tokens <= opts.budgetTokens) {
      used += tokens;
      out.included.push(item);
    } else out.cut.push(item);
  }
  return out;
}
