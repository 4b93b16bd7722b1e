// Which URLs a rendered page may carry. markdown-it's own check only refuses four schemes; a book
// and a preview need fewer: web and mail links, and paths inside the book. Everything else (any
// other scheme, including javascript:, vbscript:, file:, data: and the browser's own) is dropped.

/** Characters a browser strips or ignores inside a scheme, which an attacker uses to hide one. */
const HIDDEN = /[\u0000-\u0020\u007f-\u009f\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g;

function schemeOf(url: string): string | null {
  const text = url.replace(HIDDEN, "").toLowerCase();
  // Entities are decoded and the URL normalised before markdown-it asks; a scheme is letters then ":".
  const m = /^([a-z][a-z0-9+.-]*):/.exec(text);
  return m ? m[1]! : null;
}

/** True for a link target the output may keep: http(s), mailto, or a relative path / fragment. */
export function isSafeLinkUrl(url: string): boolean {
  const scheme = schemeOf(url);
  if (scheme === null || scheme === "http" || scheme === "https" || scheme === "mailto") return true;
  // markdown-it checks an image's source with the same function: inline pictures pass here too.
  return isInlinePicture(url);
}

function isInlinePicture(url: string): boolean {
  return /^data:image\/(?:gif|png|jpeg|webp);/i.test(url.replace(HIDDEN, ""));
}

/** True for an image source the output may keep: as a link, plus inline raster pictures. */
export function isSafeImageUrl(url: string): boolean {
  const scheme = schemeOf(url);
  if (scheme === null || scheme === "http" || scheme === "https") return true;
  return isInlinePicture(url);
}
