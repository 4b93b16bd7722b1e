export { parseMarkdown, type RenderOptions, renderMarkdown, splitFrontMatter } from "./render.js";
export { isSafeImageUrl, isSafeLinkUrl } from "./urls.js";
