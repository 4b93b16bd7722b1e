import type { LoreEntry } from "./entries.js";
import { KeyIndex, type PreparedKey } from "./match.js";

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

/** The lorebook's keys in one automaton, with the entry each belongs to (built once per lorebook version). */
interface Keyed {
  index: KeyIndex;
  owner: number[];
  keys: PreparedKey[];
  /** Token counts of rendered entries by counter: an entry renders the same until its file or its scene changes. */
  tokens: WeakMap<(text: string) => number, Map<string, number>>;
}

const indexes = new WeakMap<readonly LoreEntry[], Keyed>();

function keyed(entries: readonly LoreEntry[]): Keyed {
  let k = indexes.get(entries);
  if (!k) {
    const keys: PreparedKey[] = [];
    const owner: number[] = [];
    entries.forEach((e, i) => {
      for (const key of e.keys) {
        keys.push(key);
        owner.push(i);
      }
    });
    k = { index: new KeyIndex(keys), owner, keys, tokens: new WeakMap() };
    indexes.set(entries, k);
  }
  return k;
}

/** Per entry (by index): its first key found in `texts`, in text order, then offset. */
function firstHits(
  k: Keyed,
  texts: readonly string[],
  skip: ReadonlySet<number>,
): Map<number, { key: string; textIndex: number; offset: number }> {
  const out = new Map<number, { key: string; textIndex: number; offset: number }>();
  texts.forEach((text, t) => {
    for (const [id, offset] of k.index.firstOffsets(text)) {
      const entry = k.owner[id];
      if (skip.has(entry)) continue;
      const seen = out.get(entry);
      if (seen && (seen.textIndex < t || seen.offset <= offset)) continue;
      out.set(entry, { key: k.keys[id].key, textIndex: t, offset });
    }
  });
  return out;
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
  const k = keyed(entries);
  const hits = new Map<number, Hit>();
  let round: Hit[] = [];
  entries.forEach((entry, i) => {
    if (!entry.always) return;
    const hit = { entry, reason: { kind: "always" as const }, round: 0, textIndex: -1, offset: 0 };
    hits.set(i, hit);
    round.push(hit);
  });
  const direct = firstHits(
    k,
    working.map((w) => w.text.toLowerCase()),
    new Set(hits.keys()),
  );
  for (const [i, h] of [...direct].sort((a, b) => a[0] - b[0])) {
    const hit: Hit = {
      entry: entries[i],
      reason: { kind: "key", key: h.key, source: working[h.textIndex].source },
      round: 0,
      textIndex: h.textIndex,
      offset: h.offset,
    };
    hits.set(i, hit);
    round.push(hit);
  }
  for (let depth = 1; depth <= opts.depth && round.length > 0; depth++) {
    const found = firstHits(
      k,
      round.map((h) => h.entry.body.toLowerCase()),
      new Set(hits.keys()),
    );
    const next: Hit[] = [];
    for (const [i, h] of [...found].sort((a, b) => a[0] - b[0])) {
      const hit: Hit = {
        entry: entries[i],
        reason: { kind: "recursion", key: h.key, via: round[h.textIndex].entry.path, depth },
        round: depth,
        textIndex: h.textIndex,
        offset: h.offset,
      };
      hits.set(i, hit);
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
  let counted = k.tokens.get(opts.countTokens);
  if (!counted) {
    counted = new Map();
    k.tokens.set(opts.countTokens, counted);
  }
  let used = 0;
  for (const h of ordered) {
    const text = render(h.entry);
    let tokens = counted.get(text);
    if (tokens === undefined) {
      tokens = opts.countTokens(text);
      counted.set(text, tokens);
    }
    const item = { entry: h.entry, reason: h.reason, text, tokens };
    if (out.cut.length === 0 && used + tokens <= opts.budgetTokens) {
      used += tokens;
      out.included.push(item);
    } else out.cut.push(item);
  }
  return out;
}
