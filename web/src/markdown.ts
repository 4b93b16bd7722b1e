// The preview renders with the book's own renderer (src/markdown), so what the author previews is
// what the export prints. Raw HTML never runs there; links open in a new window, away from the editor.
import { renderMarkdown as renderBook, splitFrontMatter } from "../../src/markdown/index.js";

/** Render a file's Markdown for the preview: its YAML front matter (metadata, not prose) left out. */
export function renderMarkdown(src: string): string {
  return renderBook(splitFrontMatter(src).body, { newWindowLinks: true });
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/**
 * Words in a text as a writer counts them: each CJK character is one word, and so is each run of
 * letters or digits (apostrophes and hyphens inside a word keep it whole). The same rule as the
 * server's tree counts (src/serve/routes/files.ts), so the editor and the tree agree.
 */
export function countWords(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  const words = text.replace(CJK, " ").match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu)?.length ?? 0;
  return cjk + words;
}
