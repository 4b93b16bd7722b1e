import { isUtf8 } from "node:buffer";
import iconv from "iconv-lite";
import { detectCharset } from "./detect.js";

/** Where the charset of a decoded page came from. */
export type CharsetSource = "header" | "bom" | "meta" | "detector";

export interface DecodedText {
  text: string;
  /** The decoder used (after the mapping below), e.g. `gb18030` for a page declaring gbk. */
  charset: string;
  source: CharsetSource;
}

/**
 * Labels decoded with a superset: Node's own GBK and Big5 decoders lose GB18030's four-byte
 * characters and HKSCS characters (嘅, 咗), so gbk/gb2312 read as GB18030 and big5 as Big5-HKSCS;
 * Latin-1 and ASCII labels mean Windows-1252 on the web.
 */
const SUPERSETS: Record<string, string> = {
  gbk: "gb18030",
  gb2312: "gb18030",
  "x-gbk": "gb18030",
  cp936: "gb18030",
  "euc-cn": "gb18030",
  csgb2312: "gb18030",
  big5: "big5-hkscs",
  "x-x-big5": "big5-hkscs",
  "cn-big5": "big5-hkscs",
  big5hkscs: "big5-hkscs",
  "iso-8859-1": "windows-1252",
  latin1: "windows-1252",
  "us-ascii": "windows-1252",
  ascii: "windows-1252",
  "shift-jis": "shift_jis",
  "ks_c_5601-1987": "euc-kr",
  utf8: "utf-8",
};

/** The decoder for a declared charset label, or null when the label is unknown. */
export function decoderFor(label: string): string | null {
  const l = label
    .trim()
    .toLowerCase()
    .replace(/^["']|["']$/g, "");
  const name = SUPERSETS[l] ?? l;
  if (name === "utf-8") return name;
  return iconv.encodingExists(name) ? name : null;
}

function bomCharset(b: Uint8Array): string | null {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return "utf-8";
  if (b[0] === 0xff && b[1] === 0xfe) return "utf-16le";
  if (b[0] === 0xfe && b[1] === 0xff) return "utf-16be";
  return null;
}

/** `<meta charset>`, `<meta http-equiv="Content-Type" content="…; charset=…">` or an XML declaration. */
function declaredInMarkup(b: Uint8Array): string | null {
  const head = Buffer.from(b.subarray(0, 8192)).toString("latin1");
  const meta = /<meta\b[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  const xml = /^\s*<\?xml\b[^>]*?encoding\s*=\s*["']([\w.:-]+)/i.exec(head);
  const label = meta?.[1] ?? xml?.[1];
  if (!label) return null;
  // An ASCII-compatible stream that claims UTF-16 in its markup is UTF-8 (HTML spec).
  return /^utf-?16/i.test(label) ? "utf-8" : label;
}

/** Bytes up to the last complete UTF-8 character (a body cut at the byte cap may end mid-character). */
function withoutPartialTail(b: Uint8Array): Uint8Array {
  for (let back = 1; back <= Math.min(3, b.length); back++) {
    const byte = b[b.length - back];
    if ((byte & 0xc0) === 0x80) continue;
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? b.subarray(0, b.length - back) : b;
  }
  return b;
}

function decodeWith(bytes: Uint8Array, charset: string): string {
  if (charset === "utf-8") return new TextDecoder("utf-8").decode(bytes);
  return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), charset);
}

/**
 * Decode a page: the charset from the Content-Type header, else a byte-order mark, else the
 * markup's own declaration (HTML and XML only), else UTF-8 when the bytes are valid UTF-8, else
 * the detector. Unknown labels are skipped.
 */
export function decodeBody(
  bytes: Uint8Array,
  headerCharset: string | undefined,
  markup: boolean,
): DecodedText {
  const fromHeader = headerCharset ? decoderFor(headerCharset) : null;
  if (fromHeader) return { text: decodeWith(bytes, fromHeader), charset: fromHeader, source: "header" };
  const bom = bomCharset(bytes);
  if (bom) return { text: decodeWith(bytes, bom), charset: bom, source: "bom" };
  const label = markup ? declaredInMarkup(bytes) : null;
  const fromMeta = label ? decoderFor(label) : null;
  if (fromMeta) return { text: decodeWith(bytes, fromMeta), charset: fromMeta, source: "meta" };
  const sample = withoutPartialTail(bytes.subarray(0, 64 * 1024));
  const charset =
    isUtf8(sample) && (bytes.length <= sample.length || isUtf8(withoutPartialTail(bytes)))
      ? "utf-8"
      : detectCharset(bytes);
  return { text: decodeWith(bytes, charset), charset, source: "detector" };
}
