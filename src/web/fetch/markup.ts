/**
 * Cutting markup that holds no article text out of a page before it is parsed, in one forward
 * pass: every search starts where the last stopped, so a page of a million unclosed `<nav>`s costs
 * one scan, not one per tag (as a regular expression looking for each one's end would).
 */

/** One tag as the scanner sees it. */
interface Tag {
  kind: "open" | "close" | "comment" | "other";
  /** Lower-case element name ("" for comments, doctypes, processing instructions). */
  name: string;
  /** Index of its `<`. */
  start: number;
  /** Index after its `>` (after `-->` for a comment). */
  end: number;
}

const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;

const isLetter = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;

/**
 * The next tag at or after `from`, or null when the rest is text or ends inside an unterminated
 * tag. A tag ends at the first `>` after its name; a comment at the first `-->`, whose dashes may
 * be the opening ones (`<!-->` is an empty comment, as the parser reads it).
 */
function nextTag(html: string, from: number): Tag | null {
  for (let i = html.indexOf("<", from); i !== -1; i = html.indexOf("<", i + 1)) {
    const c = html.charCodeAt(i + 1);
    if (isLetter(c)) return element(html, i, "open", i + 1);
    if (c === SLASH && isLetter(html.charCodeAt(i + 2))) return element(html, i, "close", i + 2);
    if (c === BANG && html.startsWith("--", i + 2)) {
      const close = html.indexOf("-->", i + 2);
      return close === -1 ? null : { kind: "comment", name: "", start: i, end: close + 3 };
    }
    if (c === BANG || c === QUESTION) {
      const gt = html.indexOf(">", i + 2);
      return gt === -1 ? null : { kind: "other", name: "", start: i, end: gt + 1 };
    }
  }
  return null;
}

function element(html: string, start: number, kind: "open" | "close", nameStart: number): Tag | null {
  let j = nameStart;
  for (; j < html.length; j++) {
    const c = html.charCodeAt(j);
    if (isSpace(c) || c === SLASH || c === GT) break;
  }
  const gt = html.indexOf(">", j);
  if (gt === -1) return null;
  return { kind, name: html.slice(nameStart, j).toLowerCase(), start, end: gt + 1 };
}

/**
 * Finds `</name>` (spaces allowed before the `>`), searching forward only: the last answer per
 * name is kept, so repeated searches past unclosed tags of the same name cost one scan in all.
 */
class CloseFinder {
  private readonly found = new Map<string, { from: number; at: number; end: number }>();

  constructor(private readonly html: string) {}

  /** The next close tag of `name` at or after `from`: its start and the index after it, or null. */
  find(name: string, from: number): { at: number; end: number } | null {
    const last = this.found.get(name);
    if (last && last.from <= from && (last.at === -1 || last.at >= from)) {
      return last.at === -1 ? null : last;
    }
    const re = new RegExp(`</${name}\\s*>`, "gi");
    re.lastIndex = from;
    const m = re.exec(this.html);
    const hit = m ? { from, at: m.index, end: m.index + m[0].length } : { from, at: -1, end: -1 };
    this.found.set(name, hit);
    return m ? hit : null;
  }
}

/**
 * Cut comments and the elements in `names` (each from its opening tag through the first closing
 * tag of the same name, as a non-greedy match would); an element whose closing tag never comes
 * is left in place.
 */
export function stripElements(html: string, names: ReadonlySet<string>): string {
  const closes = new CloseFinder(html);
  const kept: string[] = [];
  let copied = 0;
  let at = 0;
  for (let tag = nextTag(html, at); tag; tag = nextTag(html, at)) {
    at = tag.end;
    let cutTo = -1;
    if (tag.kind === "comment") cutTo = tag.end;
    else if (tag.kind === "open" && names.has(tag.name)) cutTo = closes.find(tag.name, tag.end)?.end ?? -1;
    if (cutTo === -1) continue;
    kept.push(html.slice(copied, tag.start));
    copied = at = cutTo;
  }
  kept.push(html.slice(copied));
  return kept.join("");
}
