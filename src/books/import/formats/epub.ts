import { posix } from "node:path";
import type JSZip from "jszip";
import { NbError } from "../../../core/errors.js";
import { headingKind, headingText } from "../headings.js";
import type { Unit } from "../split.js";
import { htmlToMarkdown } from "./html-to-markdown.js";
import type { ReadBook } from "./source.js";
import { byLocalName, type DomDocument, type DomElement, firstText, localOf, parseXml } from "./xml.js";
import { corrupt, openZip, zipText } from "./zip.js";

/** One entry of the table of contents: the file it opens and, for a part, the chapters under it. */
interface TocEntry {
  title: string;
  file: string;
  children: TocEntry[];
}

// Font obfuscation also lists files in encryption.xml; it hides fonts, not the text.
const FONT_OBFUSCATION = /idpf\.org\/2008\/embedding|ns\.adobe\.com\/pdf\/enc#RC/;

async function mustText(zip: JSZip, path: string, label: string): Promise<string> {
  const text = await zipText(zip, path);
  if (text === null) throw corrupt(label, `${path} is missing`);
  return text;
}

/** Text content encrypted with DRM cannot be read: refuse with `unsupported` (reason `encrypted`). */
async function refuseEncrypted(zip: JSZip, label: string): Promise<void> {
  const xml = await zipText(zip, "META-INF/encryption.xml");
  if (!xml) return;
  const methods = byLocalName(parseXml(xml), "EncryptionMethod").map(
    (m) => m.getAttribute("Algorithm") ?? "",
  );
  if (methods.some((a) => !FONT_OBFUSCATION.test(a))) {
    throw new NbError("unsupported", `${label} is encrypted (DRM): import a copy without DRM`, {
      details: { reason: "encrypted" },
    });
  }
}

const resolveIn = (dir: string, href: string) =>
  posix.normalize(posix.join(dir, decodeURIComponent(href.split("#")[0])));

/** EPUB 3 navigation document: `<nav epub:type="toc">` and its nested lists. */
function navToc(doc: DomDocument, dir: string): TocEntry[] {
  const nav =
    byLocalName(doc, "nav").find((n) => /\btoc\b/.test(n.getAttribute("epub:type") ?? "")) ??
    byLocalName(doc, "nav")[0];
  const list = nav ? byLocalName(nav, "ol")[0] : undefined;
  const walk = (ol: DomElement): TocEntry[] =>
    [...ol.children]
      .filter((li) => localOf(li) === "li")
      .flatMap((li) => {
        const a = [...li.children].find((c) => localOf(c) === "a" || localOf(c) === "span");
        const sub = [...li.children].find((c) => localOf(c) === "ol");
        const href = a?.getAttribute("href");
        const children = sub ? walk(sub) : [];
        const file = href ? resolveIn(dir, href) : (children[0]?.file ?? "");
        return file ? [{ title: a?.textContent?.trim() ?? "", file, children }] : children;
      });
  return list ? walk(list) : [];
}

/** EPUB 2 NCX: nested `navPoint`s. */
function ncxToc(doc: DomDocument, dir: string): TocEntry[] {
  const walk = (parent: DomElement): TocEntry[] =>
    [...parent.children]
      .filter((c) => localOf(c) === "navPoint")
      .map((p) => ({
        title: firstText([...p.children].find((c) => localOf(c) === "navLabel") ?? p, "text") ?? "",
        file: resolveIn(dir, byLocalName(p, "content")[0]?.getAttribute("src") ?? ""),
        children: walk(p),
      }));
  const map = byLocalName(doc, "navMap")[0];
  return map ? walk(map) : [];
}

/** Markdown of a content document's body; its first heading is dropped when the contents give the title. */
function chapterBody(markdown: string, title: string): string {
  const lines = markdown.split("\n");
  const first = lines.findIndex((l) => l.trim());
  if (first >= 0 && /^#{1,6}\s/.test(lines[first])) {
    const h = headingText(lines[first]);
    if (h && (title.includes(h) || h.includes(title))) lines.splice(first, 1);
  }
  return lines.join("\n").trim();
}

/**
 * Read an EPUB: the OPF package (from META-INF/container.xml) gives the metadata and the spine's
 * reading order; the navigation document (EPUB 3) or the NCX (EPUB 2) names the chapters and,
 * through nesting, the parts. Content documents before the first listed one are front matter; one
 * the contents does not list continues the chapter before it.
 */
export async function readEpub(bytes: Buffer, label: string): Promise<ReadBook> {
  const zip = await openZip(bytes, label);
  await refuseEncrypted(zip, label);
  const container = parseXml(await mustText(zip, "META-INF/container.xml", label));
  const opfPath = byLocalName(container, "rootfile")[0]?.getAttribute("full-path");
  if (!opfPath) throw corrupt(label, "container.xml names no package document");
  const opf = parseXml(await mustText(zip, opfPath, label));
  const dir = posix.dirname(opfPath);
  const manifest = new Map(
    byLocalName(opf, "item").map((i) => [
      i.getAttribute("id") ?? "",
      {
        path: resolveIn(dir, i.getAttribute("href") ?? ""),
        type: i.getAttribute("media-type") ?? "",
        properties: i.getAttribute("properties") ?? "",
      },
    ]),
  );
  const spine = byLocalName(opf, "itemref")
    .map((r) => manifest.get(r.getAttribute("idref") ?? ""))
    .filter((i) => i !== undefined && /html/.test(i.type));
  const navItem = [...manifest.values()].find((i) => /\bnav\b/.test(i.properties));
  const ncxItem = [...manifest.values()].find((i) => i.type === "application/x-dtbncx+xml");
  let toc: TocEntry[] = [];
  if (navItem) toc = navToc(parseXml(await mustText(zip, navItem.path, label)), posix.dirname(navItem.path));
  if (!toc.length && ncxItem)
    toc = ncxToc(parseXml(await mustText(zip, ncxItem.path, label)), posix.dirname(ncxItem.path));

  const starts = new Map<string, { title: string; kind: Unit["kind"] }>();
  for (const part of toc) {
    const isPart = part.children.length > 0 || headingKind(part.title) === "part";
    if (!starts.has(part.file))
      starts.set(part.file, { title: part.title, kind: isPart ? "part" : "chapter" });
    for (const ch of part.children)
      if (!starts.has(ch.file)) starts.set(ch.file, { title: ch.title, kind: "chapter" });
  }
  const footnotes = new Map<string, string>();
  const front: string[] = [];
  const units: Unit[] = [];
  const whole: string[] = [];
  for (const item of spine) {
    if (!item || item === navItem) continue;
    const html = await zipText(zip, item.path);
    if (html === null) throw corrupt(label, `${item.path} is listed in the spine but missing`);
    const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
    const converted = htmlToMarkdown(body);
    for (const [k, v] of converted.footnotes) footnotes.set(k, v);
    whole.push(converted.markdown);
    const start = starts.get(item.path);
    if (start) units.push({ ...start, body: chapterBody(converted.markdown, start.title) });
    else if (units.length) units[units.length - 1].body += `\n\n${converted.markdown}`;
    else front.push(converted.markdown);
  }
  const meta = {
    title: firstText(opf, "title"),
    author: firstText(opf, "creator"),
    language: firstText(opf, "language"),
  };
  // Contents that name fewer than two documents (one file per book) tell nothing: cut by headings.
  const base = { format: "epub" as const, meta, footnotes, warnings: [] };
  if (starts.size < 2) return { ...base, markdown: whole.join("\n\n") };
  return { ...base, units: { front: front.join("\n\n").trim(), units } };
}
