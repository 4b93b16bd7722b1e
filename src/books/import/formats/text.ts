import { parse as parseYaml } from "yaml";
import { toLf } from "../../../core/text.js";
import { decodeManuscript } from "../decode.js";
import type { ImportWarning } from "../warnings.js";
import type { BookMeta, ReadBook } from "./source.js";

const FRONT_MATTER = /^---\n([\s\S]*?)\n---(?:\n|$)/;

/** A Markdown file's YAML front matter (title, author, lang/language) and the text after it. */
export function splitFrontMatter(text: string): {
  meta: BookMeta;
  body: string;
  data: Record<string, unknown>;
} {
  const m = FRONT_MATTER.exec(text);
  if (!m) return { meta: {}, body: text, data: {} };
  let data: unknown;
  try {
    data = parseYaml(m[1]);
  } catch {
    // Not YAML after all: the lines are the author's text.
    return { meta: {}, body: text, data: {} };
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) return { meta: {}, body: text, data: {} };
  const d = data as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);
  return {
    meta: { title: str(d.title), author: str(d.author), language: str(d.lang) ?? str(d.language) },
    body: text.slice(m[0].length),
    data: d,
  };
}

/**
 * Plain text as Markdown: a text that writes one paragraph a line (most Chinese web novels) gets a
 * blank line between lines, so each stays a paragraph; the indent of full-width spaces is dropped.
 */
export function plainToMarkdown(text: string): string {
  const lines = text
    .trim()
    .split("\n")
    .map((l) => l.replace(/^[\u3000\s]+/, "").replace(/\s+$/, ""));
  const filled = lines.filter((l) => l).length;
  const blanks = lines.length - filled;
  return blanks < filled / 4 ? lines.filter((l) => l).join("\n\n") : lines.join("\n");
}

/** The warning for a file decoded line by line from two encodings. */
export function mixedWarning(label: string, mixed: Record<string, number>): ImportWarning {
  const parts = Object.entries(mixed).map(([c, n]) => `${n} line(s) as ${c}`);
  return {
    code: "mixed_encodings",
    message: `${label} mixes text encodings; read ${parts.join(" and ")}. Check those lines.`,
  };
}

const DEFINITION = /^\[\^([^\]\s]+)\]:[ \t]?(.*)$/;

/**
 * Footnote definitions (`[^1]: …`, with their indented continuation lines) taken out of a
 * Markdown text, so each can follow the chapter that refers to it once the book is cut.
 */
export function takeFootnotes(markdown: string): { markdown: string; footnotes: Map<string, string> } {
  const footnotes = new Map<string, string>();
  const kept: string[] = [];
  let open: string | null = null;
  for (const line of markdown.split("\n")) {
    const m = DEFINITION.exec(line);
    if (m) {
      open = m[1];
      footnotes.set(open, m[2]);
    } else if (open !== null && /^( {4}|\t)\S/.test(line)) {
      footnotes.set(open, `${footnotes.get(open)}\n${line}`);
    } else {
      if (line.trim()) open = null;
      kept.push(line);
    }
  }
  return { markdown: kept.join("\n"), footnotes };
}

/** Read a Markdown or plain-text file (any encoding web_fetch detects). */
export function readTextFile(bytes: Buffer, label: string, markdown: boolean): ReadBook {
  const decoded = decodeManuscript(bytes);
  const text = toLf(decoded.text);
  const warnings = decoded.mixed ? [mixedWarning(label, decoded.mixed)] : [];
  if (!markdown) {
    return {
      format: "text",
      meta: {},
      markdown: plainToMarkdown(text),
      footnotes: new Map(),
      charset: decoded.charset,
      warnings,
    };
  }
  const { meta, body } = splitFrontMatter(text);
  return {
    format: "markdown",
    meta,
    ...takeFootnotes(body),
    charset: decoded.charset,
    warnings,
  };
}
