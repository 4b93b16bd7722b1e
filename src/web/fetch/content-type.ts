/** A Content-Type header, split: lower-case media type and the declared charset, if any. */
export interface MediaType {
  mime: string;
  charset?: string;
}

/** Parse a Content-Type header value (missing or empty gives an empty mime). */
export function parseContentType(header: string | undefined): MediaType {
  if (!header) return { mime: "" };
  const [type, ...params] = header.split(";");
  const out: MediaType = { mime: type.trim().toLowerCase() };
  for (const p of params) {
    const m = /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(p);
    if (m) out.charset = m[1];
  }
  return out;
}

/** How web_fetch treats a body: as HTML, as plain text (XML, JSON, text/*), or refused. */
export type BodyKind = "html" | "text" | "refused";

const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/x-ndjson",
]);

/**
 * The kind a declared media type gives; `unknown` when the body must be sniffed (no type, or
 * the catch-all `application/octet-stream` that servers also send for text).
 */
export function kindOfMime(mime: string): BodyKind | "unknown" {
  if (mime === "" || mime === "application/octet-stream" || mime === "binary/octet-stream") return "unknown";
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  if (mime.startsWith("text/") || TEXT_TYPES.has(mime) || /\+(xml|json)$/.test(mime)) return "text";
  return "refused";
}

/** Leading bytes of common binary formats (images, archives, PDF, media, executables). */
const MAGIC: readonly number[][] = [
  [0x25, 0x50, 0x44, 0x46], // %PDF
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF8
  [0x50, 0x4b, 0x03, 0x04], // ZIP, docx, epub
  [0x1f, 0x8b], // gzip
  [0x7f, 0x45, 0x4c, 0x46], // ELF
  [0x4d, 0x5a], // MZ (Windows executables)
  [0x52, 0x49, 0x46, 0x46], // RIFF (WebP, WAV, AVI)
  [0x00, 0x00, 0x00], // MP4/ftyp-style boxes and other length-prefixed containers
];

/**
 * True when the first KiB of a body holds a NUL byte, which no text in an ASCII-compatible charset
 * has: the body is binary whatever type it claims. UTF-16 text carries NULs in every other byte;
 * a BOM or a declared UTF-16 charset says it is that.
 */
export function hasNulBytes(head: Uint8Array, charset?: string): boolean {
  const utf16 =
    (head[0] === 0xff && head[1] === 0xfe) ||
    (head[0] === 0xfe && head[1] === 0xff) ||
    /^utf-?16/i.test(charset?.trim() ?? "");
  if (utf16) return false;
  const n = Math.min(head.length, 1024);
  for (let i = 0; i < n; i++) if (head[i] === 0) return true;
  return false;
}

/** Sniff a body without a usable type: binary signatures or NUL bytes refuse it; markup is HTML. */
export function sniffKind(head: Uint8Array): BodyKind {
  if (MAGIC.some((sig) => sig.every((b, i) => head[i] === b))) return "refused";
  if (hasNulBytes(head)) return "refused";
  const n = Math.min(head.length, 1024);
  const start = Buffer.from(head.subarray(0, n)).toString("latin1").trimStart().toLowerCase();
  return /^(?:\ufeff|ï»¿)?\s*<(?:!doctype html|html|head|body|meta|title|div|p\b|!--)/.test(start)
    ? "html"
    : "text";
}
