import { isUtf8 } from "node:buffer";
import iconv from "iconv-lite";
import { detectCharset } from "../../web/fetch/detect.js";

/** A text file's bytes read as text, and how. */
export interface DecodedFile {
  text: string;
  /** The decoder used, e.g. `utf-8`, `gb18030`, `big5-hkscs`; `mixed` when lines needed different ones. */
  charset: string;
  /** Lines with non-ASCII text by decoder, when they differ (a file pasted together from two encodings). */
  mixed?: Record<string, number>;
}

const BOMS: [number[], string][] = [
  [[0xef, 0xbb, 0xbf], "utf-8"],
  [[0xff, 0xfe], "utf-16le"],
  [[0xfe, 0xff], "utf-16be"],
];

/**
 * Decode a manuscript's bytes as `web_fetch` decodes an undeclared page: a byte-order mark, else
 * UTF-8 when the bytes are valid UTF-8, else the CJK detector (GB18030, Big5-HKSCS, Shift_JIS,
 * EUC-KR, else Windows-1252). Bytes that are neither wholly UTF-8 nor wholly legacy are decoded
 * line by line (each line valid UTF-8 as UTF-8, the rest with the detected legacy charset), so a
 * file pasted together from two encodings still reads, and says so in `mixed`.
 */
export function decodeManuscript(bytes: Buffer): DecodedFile {
  for (const [bom, charset] of BOMS) {
    if (bom.every((b, i) => bytes[i] === b)) {
      return { text: iconv.decode(bytes.subarray(bom.length), charset), charset };
    }
  }
  if (isUtf8(bytes)) return { text: bytes.toString("utf8"), charset: "utf-8" };
  const lines = splitLines(bytes);
  const nonAscii = lines.filter((l) => l.some((b) => b >= 0x80));
  const utf8Lines = nonAscii.filter(isUtf8Text);
  const legacy = detectCharset(Buffer.concat(nonAscii.filter((l) => !isUtf8Text(l))));
  if (utf8Lines.length === 0) return { text: iconv.decode(bytes, legacy), charset: legacy };
  const text = lines.map((l) => (isUtf8Text(l) ? l.toString("utf8") : iconv.decode(l, legacy))).join("");
  return {
    text,
    charset: "mixed",
    mixed: { "utf-8": utf8Lines.length, [legacy]: nonAscii.length - utf8Lines.length },
  };
}

/** Legacy CJK bytes pass as UTF-8 only by chance, in a character or two: a longer valid run is UTF-8. */
function isUtf8Text(line: Buffer): boolean {
  let high = 0;
  for (const b of line) if (b >= 0x80) high++;
  return high >= 6 && isUtf8(line);
}

/** The bytes cut after each `\n` (every legacy CJK encoding keeps 0x0a a newline). */
function splitLines(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, start)) {
    out.push(bytes.subarray(start, i + 1));
    start = i + 1;
  }
  if (start < bytes.length) out.push(bytes.subarray(start));
  return out;
}
