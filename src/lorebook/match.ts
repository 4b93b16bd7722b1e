/**
 * Key matching for canon activation. Chinese and Japanese have no spaces between words, so a key
 * written in those scripts matches anywhere; a Latin key matches only as a whole word ("Ann" is not
 * found in "Annual"). The rule is per edge: a key's end needs a word boundary only when its edge
 * character is a letter or digit outside the CJK scripts. Matching ignores case.
 */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const WORD = /[\p{L}\p{N}_]/u;

function needsBoundary(ch: string): boolean {
  return ch !== "" && WORD.test(ch) && !CJK.test(ch);
}

/** A key prepared for matching: lower-cased, with which of its edges need a word boundary. */
export interface PreparedKey {
  key: string;
  lower: string;
  left: boolean;
  right: boolean;
}

export function prepareKey(key: string): PreparedKey {
  const lower = key.toLowerCase();
  const chars = [...lower];
  return { key, lower, left: needsBoundary(chars[0]), right: needsBoundary(chars[chars.length - 1]) };
}

/** The character ending just before offset `i` (a surrogate pair read whole). */
function charBefore(text: string, i: number): string {
  if (i <= 0) return "";
  const low = text.charCodeAt(i - 1);
  return low >= 0xdc00 && low <= 0xdfff && i > 1 ? text.slice(i - 2, i) : text[i - 1];
}

/** The character starting at offset `i`. */
function charAt(text: string, i: number): string {
  if (i >= text.length) return "";
  return String.fromCodePoint(text.codePointAt(i) as number);
}

/** The first offset of `k` in `lower` (an already lower-cased text) that respects its boundaries; -1 when none. */
export function findKey(lower: string, k: PreparedKey): number {
  let from = 0;
  for (;;) {
    const at = lower.indexOf(k.lower, from);
    if (at < 0) return -1;
    const end = at + k.lower.length;
    const leftOk = !k.left || !needsBoundary(charBefore(lower, at));
    const rightOk = !k.right || !needsBoundary(charAt(lower, end));
    if (leftOk && rightOk) return at;
    from = at + 1;
  }
}

/**
 * All keys of a lorebook in one Aho–Corasick automaton: a text is scanned once for every key,
 * however many there are (a search per key would read a 24,000-character chapter a thousand times
 * at 500 entries). Keys are numbered by their position in the list given.
 */
export class KeyIndex {
  /** Per node: its children by UTF-16 code unit. */
  private readonly next: Map<number, number>[] = [new Map()];
  private readonly fail: number[] = [0];
  /** Keys ending at a node, and those of the nodes its failure links lead to. */
  private readonly out: number[][] = [[]];

  constructor(private readonly keys: readonly PreparedKey[]) {
    keys.forEach((k, id) => {
      let node = 0;
      for (let i = 0; i < k.lower.length; i++) {
        const c = k.lower.charCodeAt(i);
        let child = this.next[node].get(c);
        if (child === undefined) {
          child = this.next.length;
          this.next.push(new Map());
          this.fail.push(0);
          this.out.push([]);
          this.next[node].set(c, child);
        }
        node = child;
      }
      this.out[node].push(id);
    });
    const queue: number[] = [...this.next[0].values()];
    for (let q = 0; q < queue.length; q++) {
      const node = queue[q];
      for (const [c, child] of this.next[node]) {
        let f = this.fail[node];
        while (f !== 0 && !this.next[f].has(c)) f = this.fail[f];
        const to = this.next[f].get(c);
        this.fail[child] = to !== undefined && to !== child ? to : 0;
        this.out[child] = this.out[child].concat(this.out[this.fail[child]]);
        queue.push(child);
      }
    }
  }

  /** The first offset of each key found in `lower` (already lower-cased) with its word boundaries, by key number. */
  firstOffsets(lower: string): Map<number, number> {
    const found = new Map<number, number>();
    let node = 0;
    for (let i = 0; i < lower.length; i++) {
      const c = lower.charCodeAt(i);
      let to = this.next[node].get(c);
      while (to === undefined && node !== 0) {
        node = this.fail[node];
        to = this.next[node].get(c);
      }
      node = to ?? 0;
      for (const id of this.out[node]) {
        if (found.has(id)) continue;
        const k = this.keys[id];
        const at = i + 1 - k.lower.length;
        if (k.left && needsBoundary(charBefore(lower, at))) continue;
        if (k.right && needsBoundary(charAt(lower, i + 1))) continue;
        found.set(id, at);
      }
    }
    return found;
  }
}
