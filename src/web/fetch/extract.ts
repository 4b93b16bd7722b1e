import { isProbablyReaderable, Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";
import { assertExtractable } from "./complexity.js";
import { stripElements } from "./markup.js";
import { cjkShare, readerThresholds } from "./script-weight.js";
import { type Extracted, tidy } from "./tidy.js";

/**
 * Elements that hold no article text: scripts, styles, embedded documents, and the navigation,
 * sidebars, footers and form controls that every reading drops anyway. Cut from the string (with
 * comments) before parsing: a site's menus can be a third of its DOM, and building those nodes
 * only to remove them costs more than the rest of the extraction.
 */
const NOISE = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "iframe",
  "nav",
  "aside",
  "footer",
  "select",
  "button",
]);

/**
 * Paragraph indents of runs of U+00A0 / U+3000 (and their entities) after a block boundary, as
 * Chinese sites write them; left in, a Markdown converter keeps them and a reader sees code blocks.
 * No `<` inside a tag and no line break before the indent, so no match attempt runs on past the
 * next tag or line (each would, on a page of unclosed tags or blank lines, and take quadratic time).
 */
const INDENT =
  /((?:<(?:p|div|br|li|td|section|article|blockquote|h[1-6])\b[^<>]*>|\n)[ \t\r]*)(?:[\u00a0\u3000]|&nbsp;|&#160;|&#xa0;|&#12288;|&#x3000;|&emsp;|&ensp;)+/gi;

/** Containers read when Readability finds no article, most specific first. */
const FALLBACK_ROOTS = ["main", "article", "[role=main]", "#content", ".content", "body"];
/** Besides NOISE, the fallback drops the site header; not forms, which some sites wrap whole pages in. */
const FALLBACK_NOISE = "header";

/** The DOM types come from linkedom; the project has no DOM lib. */
type LinkedDocument = ReturnType<typeof parseHTML>["document"];
type ConvertibleNode = Parameters<TurndownService["turndown"]>[0];

let converter: TurndownService | undefined;

function turndown(): TurndownService {
  if (converter) return converter;
  const td = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "*",
    hr: "---",
  });
  // Links without text are noise; images keep their alt text and an absolute address (data: URIs dropped).
  td.addRule("emptyLink", {
    filter: (node) => node.nodeName === "A" && !(node.textContent ?? "").trim() && !node.querySelector("img"),
    replacement: () => "",
  });
  td.addRule("image", {
    filter: "img",
    replacement: (_content, node) => {
      const el = node;
      const src = el.getAttribute("src") ?? "";
      const alt = (el.getAttribute("alt") ?? "").replace(/[[\]\n]/g, " ").trim();
      if (!src || src.startsWith("data:")) return alt;
      return `![${alt}](${src})`;
    },
  });
  converter = td;
  return td;
}

/**
 * A full document for the parser: linkedom builds no `<html>`/`<body>` around a fragment (which
 * leaves Readability nothing to read), so a page without them gets them here.
 */
function asDocument(html: string): string {
  let out = html;
  if (!/<body[\s>]/i.test(out)) {
    const headEnd = /<\/head\s*>/i.exec(out);
    out = headEnd
      ? `${out.slice(0, headEnd.index + headEnd[0].length)}<body>${out.slice(headEnd.index + headEnd[0].length)}</body>`
      : `<head></head><body>${out}</body>`;
  }
  if (!/<html[\s>]/i.test(out)) out = `<html>${out}</html>`;
  return out;
}

/** Put a `<base>` with the page's absolute base in the head, so relative links come out absolute. */
function withBase(html: string, pageUrl: string): string {
  let base = pageUrl;
  const declared = /<base\b[^<>]*?\bhref\s*=\s*["']?([^"'\s<>]+)/i.exec(html);
  if (declared) {
    try {
      base = new URL(declared[1], pageUrl).href;
    } catch {
      // An unparsable <base> is ignored, as browsers do.
    }
  }
  const tag = `<base href="${base.replace(/"/g, "%22")}">`;
  const stripped = html.replace(/<base\b[^<>]*>/gi, "");
  const head = /<head\b[^<>]*>/i.exec(stripped);
  if (!head) return tag + stripped;
  const at = head.index + head[0].length;
  return stripped.slice(0, at) + tag + stripped.slice(at);
}

/** Characters of candidate text gathered to tell a page's script. */
const SCRIPT_SAMPLE_CHARS = 20_000;

/**
 * The text of the blocks Readability's gate weighs (paragraphs, preformatted text, a `<div>` of
 * `<br>`-separated lines), to tell the script of the article rather than of the menus.
 */
function candidateText(doc: LinkedDocument): string {
  const seen = new Set<unknown>();
  let text = "";
  for (const el of doc.querySelectorAll("p, pre, div > br")) {
    const block = el.nodeName === "BR" ? el.parentNode : el;
    if (!block || seen.has(block)) continue;
    seen.add(block);
    text += `${block.textContent ?? ""}\n`;
    if (text.length > SCRIPT_SAMPLE_CHARS) break;
  }
  return text;
}

function metaContent(doc: LinkedDocument, selector: string): string | undefined {
  const v = doc.querySelector(selector)?.getAttribute("content")?.trim();
  return v || undefined;
}

/** A title or description as a short line (Readability's excerpt can be a whole first paragraph). */
function short(text: string | null | undefined): string | undefined {
  const t = text?.replace(/\s+/g, " ").trim();
  if (!t) return undefined;
  return t.length > 300 ? `${t.slice(0, 299)}…` : t;
}

/**
 * Readable Markdown from an HTML page: Readability's article when the page reads as one, else the
 * main/article/body text without navigation, header, footer and asides. A page too large or too
 * deeply nested to extract in reasonable time is refused before it is parsed (`limit_exceeded`).
 */
export function extractHtml(html: string, pageUrl: string): Extracted {
  const prepared = withBase(asDocument(stripElements(html, NOISE).replace(INDENT, "$1")), pageUrl);
  assertExtractable(prepared, pageUrl);
  const { document } = parseHTML(prepared);
  // The first <title> wherever it is (document.title only looks in <head>).
  const title = short(document.querySelector("title")?.textContent);
  const description = short(
    metaContent(document, 'meta[name="description" i]') ??
      metaContent(document, 'meta[property="og:description"]'),
  );
  // A page with no article-like text (a short notice, a list of links such as a ranking) is read
  // whole instead: Readability would keep a fragment of it, or the navigation.
  // Its thresholds count characters; a CJK page holds as much text in a third of them.
  const { minContentLength, minScore, charThreshold } = readerThresholds(cjkShare(candidateText(document)));
  const article = isProbablyReaderable(document as never, { minContentLength, minScore })
    ? new Readability(document as never, {
        charThreshold,
        // Markdown has no classes: keeping them spares Readability a walk over every element.
        keepClasses: true,
        serializer: (el) => el as unknown as ConvertibleNode,
      }).parse()
    : null;
  const articleRoot = article?.content ?? undefined;
  const articleText = article?.textContent?.trim();
  if (articleRoot && articleText) {
    return {
      title: short(article?.title) ?? title,
      description: description ?? short(article?.excerpt),
      content: tidy(turndown().turndown(articleRoot)),
      format: "markdown",
      method: "readability",
    };
  }
  const fresh = parseHTML(prepared).document;
  for (const el of fresh.querySelectorAll(FALLBACK_NOISE)) el.remove();
  const root = FALLBACK_ROOTS.map((s) => fresh.querySelector(s)).find((el) => el) ?? fresh.documentElement;
  return {
    ...(title ? { title } : {}),
    ...(description ? { description } : {}),
    content: root ? tidy(turndown().turndown(root as unknown as ConvertibleNode)) : "",
    format: "markdown",
    method: "fallback",
  };
}
