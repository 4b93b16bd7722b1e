// The preview renders with the book's own renderer (src/markdown), so what the author previews is
// what the export prints. Raw HTML never runs there; links open in a new window, away from the editor.
// Words are counted by the server's own rule (core/text.ts), so the editor and the tree agree.
import { renderMarkdown as renderBook, splitFrontMatter } from "../../src/markdown/index.js";

export { countWords } from "../../src/core/text.js";

/** Render a file's Markdown for the preview: its YAML front matter (metadata, not prose) left out. */
export function renderMarkdown(src: string): string {
  return renderBook(splitFrontMatter(src).body, { newWindowLinks: true });
}
