import { statSync } from "node:fs";
import { basename, extname } from "node:path";
import { NbError } from "../../core/errors.js";
import { looksBinary } from "../../core/text.js";
import { readDocx } from "./formats/docx.js";
import { readEpub } from "./formats/epub.js";
import { readFolder } from "./formats/folder.js";
import type { ReadBook } from "./formats/source.js";
import { readTextFile } from "./formats/text.js";
import { corrupt, isOleFile, isZip, oleRefusal } from "./formats/zip.js";

/**
 * The largest manuscript imported: 32 MiB, many times a long novel (120,000 words of DOCX is about
 * 1 MB), and small enough to upload through the API as base64 JSON. A larger file is refused.
 */
export const MAX_IMPORT_BYTES = 32 * 1024 * 1024;

/** What to import: a file or folder on disk, or a file's bytes (an upload) with its name. */
export type ImportSource = { path: string } | { bytes: Buffer; name: string };

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

function tooLarge(label: string, size: number): NbError {
  return new NbError(
    "limit_exceeded",
    `${label} is ${mb(size)}; the import limit is ${mb(MAX_IMPORT_BYTES)}. Split the manuscript (or remove its images) and import the parts with --into.`,
    { details: { reason: "too_large", bytes: size, limit: MAX_IMPORT_BYTES } },
  );
}

/** The name shown for a source (never its path). */
export function sourceLabel(source: ImportSource): string {
  return "name" in source ? basename(source.name) : basename(source.path.replace(/[\\/]+$/, ""));
}

/** Read a file's bytes as the book its content (not only its name) says it is. */
async function readBytes(bytes: Buffer, name: string): Promise<ReadBook> {
  const label = basename(name);
  if (bytes.length > MAX_IMPORT_BYTES) throw tooLarge(label, bytes.length);
  if (!bytes.toString("utf8").trim()) {
    throw new NbError("invalid_input", `${label} is empty: there is nothing to import`, {
      details: { reason: "empty" },
    });
  }
  const ext = extname(name).toLowerCase();
  if (isOleFile(bytes)) throw oleRefusal(bytes, label);
  if (ext === ".docx" || ext === ".epub" || isZip(bytes)) {
    if (!isZip(bytes)) throw corrupt(label, "not a zip archive");
    const epub =
      ext === ".epub" || bytes.subarray(30, 58).toString("latin1") === "mimetypeapplication/epub+zip";
    return epub ? readEpub(bytes, label) : readDocx(bytes, label);
  }
  if (looksBinary(bytes) && !isUtf16(bytes)) {
    throw new NbError(
      "unsupported",
      `${label} is not a manuscript NeuroBook reads (DOCX, EPUB, Markdown or plain text)`,
      {
        details: { reason: "unknown_format" },
      },
    );
  }
  return readTextFile(bytes, label, ext !== ".txt" && ext !== ".text");
}

/** A UTF-16 text (with its byte-order mark) has NUL bytes but is text. */
function isUtf16(b: Buffer): boolean {
  return (b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff);
}

/** Read the source: a folder of Markdown files, or one DOCX, EPUB, Markdown or text file. */
export async function readSource(source: ImportSource): Promise<ReadBook> {
  if ("bytes" in source) return readBytes(source.bytes, source.name);
  const label = sourceLabel(source);
  const st = statSync(source.path, { throwIfNoEntry: false });
  if (!st) throw new NbError("not_found", `No file or folder named ${label}`);
  if (st.isDirectory()) return readFolder(source.path, label);
  if (!st.isFile()) throw new NbError("invalid_input", `${label} is not a regular file`);
  if (st.size > MAX_IMPORT_BYTES) throw tooLarge(label, st.size);
  const { readFileSync } = await import("node:fs");
  return readBytes(readFileSync(source.path), source.path);
}
