// The one Markdown renderer: the workbench preview and the HTML/EPUB export both call it, so what
// the author previews is what the book prints. CommonMark + GFM tables and strikethrough + footnotes
// (markdown-it), with raw HTML off and every URL checked. Browser-safe: no node: imports here.
import MarkdownIt, { type PluginSimple, type Token } from "markdown-it";
import footnote from "markdown-it-footnote";
import { isSafeImageUrl, isSafeLinkUrl } from "./urls.js";

/** What a caller may change per rendering; passed through markdown-it's `env`, one parser for all. */
export interface RenderOptions {
  /** Prefix for footnote ids, so several chapters can share one page without id clashes. */
  docId?: string;
  /** Links open in a new window with no opener (the preview: a click must not leave the editor). */
  newWindowLinks?: boolean;
  /**
   * Keep only web and mail links (a book's pages cannot follow a link to a project file or to an
   * anchor of the author's): any other link shows as its text.
   */
  webLinksOnly?: boolean;
  /**
   * Where an image's `src` (already checked as safe) points in the output, or null to show its
   * alt text instead. Without it, only inline `data:image/…` pictures are shown.
   */
  image?: (src: string) => string | null;
}

interface Env {
  docId?: string;
  nb?: RenderOptions;
}

/** Paragraphs that are only a scene-break ornament (as imported books write them) render as a rule. */
const ORNAMENT = /^\s*(?:[＊*]\s*){3,}$|^\s*(?:[◇◆○●]\s*){3,}$|^\s*⁂\s*$/u;

function createParser(): MarkdownIt {
  const md = new MarkdownIt("default", { html: false, xhtmlOut: true, linkify: false, typographer: false });
  // @types/markdown-it-footnote is typed against markdown-it's CommonJS declarations; the plugin is the same.
  md.use(footnote as unknown as PluginSimple);
  md.validateLink = isSafeLinkUrl;

  const defaultLinkOpen = md.renderer.rules.link_open;
  md.renderer.rules.link_open = (tokens, idx, options, env: Env, self) => {
    if (env.nb?.newWindowLinks) {
      tokens[idx]!.attrSet("target", "_blank");
      tokens[idx]!.attrSet("rel", "noopener noreferrer");
    }
    return defaultLinkOpen
      ? defaultLinkOpen(tokens, idx, options, env, self)
      : self.renderToken(tokens, idx, options);
  };

  const defaultImage = md.renderer.rules.image!;
  md.renderer.rules.image = (tokens, idx, options, env: Env, self) => {
    const token = tokens[idx]!;
    const src = token.attrGet("src") ?? "";
    const resolve = env.nb?.image ?? ((s: string) => (/^data:image\//i.test(s) ? s : null));
    const target = src && isSafeImageUrl(src) ? resolve(src) : null;
    if (target === null) {
      const alt = self.renderInlineAsText(token.children ?? [], options, env);
      return `<span class="md-image">${md.utils.escapeHtml(alt)}</span>`;
    }
    token.attrSet("src", target);
    return defaultImage(tokens, idx, options, env, self);
  };

  md.core.ruler.push("web_links_only", (state) => {
    if (!(state.env as Env).nb?.webLinksOnly) return true;
    for (const block of state.tokens) {
      if (block.type !== "inline" || !block.children) continue;
      const kept = [];
      const dropped: boolean[] = [];
      for (const t of block.children) {
        if (t.type === "link_open") {
          const drop = !/^(?:https?|mailto):/i.test(t.attrGet("href") ?? "");
          dropped.push(drop);
          if (drop) continue;
        } else if (t.type === "link_close" && dropped.pop()) continue;
        kept.push(t);
      }
      block.children = kept;
    }
    return true;
  });

  md.core.ruler.push("scene_break_ornament", (state) => {
    const tokens = state.tokens;
    for (let i = 0; i + 2 < tokens.length; i++) {
      const open = tokens[i]!;
      const inline = tokens[i + 1]!;
      if (open.type !== "paragraph_open" || inline.type !== "inline" || !ORNAMENT.test(inline.content))
        continue;
      const hr = new state.Token("hr", "hr", 0);
      hr.block = true;
      hr.markup = inline.content.trim();
      hr.map = open.map;
      tokens.splice(i, 3, hr);
    }
    return true;
  });
  return md;
}

let parser: MarkdownIt | null = null;

/**
 * The same parse as `renderMarkdown`, as markdown-it's tokens: for writers of other formats (DOCX),
 * so they read the Markdown exactly as the preview does.
 */
export function parseMarkdown(src: string, opts: RenderOptions = {}): Token[] {
  parser ??= createParser();
  const env: Env = { nb: opts };
  if (opts.docId !== undefined) env.docId = opts.docId;
  return parser.parse(src, env);
}

/** Render Markdown to HTML (XHTML-serialised, so an EPUB can carry it) with no markup from the source. */
export function renderMarkdown(src: string, opts: RenderOptions = {}): string {
  parser ??= createParser();
  const env: Env = { nb: opts };
  if (opts.docId !== undefined) env.docId = opts.docId;
  return parser.render(src, env);
}

/** The text after a leading YAML front-matter block (metadata, not prose), and the block itself. */
export function splitFrontMatter(src: string): { frontMatter: string | null; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(src);
  if (!m) return { frontMatter: null, body: src };
  return { frontMatter: m[1]!, body: src.slice(m[0].length) };
}
