import JSZip from "jszip";
import { NbError } from "../../../core/errors.js";

const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** True for an OLE compound file: Word 97-2003, or an Office file encrypted with a password. */
export function isOleFile(bytes: Buffer): boolean {
  return OLE_MAGIC.every((b, i) => bytes[i] === b);
}

/** True for a zip archive (DOCX and EPUB are zips). */
export function isZip(bytes: Buffer): boolean {
  return bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

/**
 * Why an OLE file cannot be imported: a password-protected DOCX is an OLE container holding an
 * `EncryptedPackage` stream; any other is a legacy binary document.
 */
export function oleRefusal(bytes: Buffer, label: string): NbError {
  if (bytes.includes(Buffer.from("EncryptedPackage", "utf16le"))) {
    return new NbError(
      "unsupported",
      `${label} is protected with a password: open it in your word processor, remove the password (or save an unprotected copy) and import that`,
      { details: { reason: "encrypted" } },
    );
  }
  return new NbError(
    "unsupported",
    `${label} is a Word 97-2003 document (.doc): save it as .docx in your word processor and import that`,
    { details: { reason: "legacy_format" } },
  );
}

/** Open a zip archive; a damaged one is `invalid_input` (reason `corrupt_file`). */
export async function openZip(bytes: Buffer, label: string): Promise<JSZip> {
  try {
    return await JSZip.loadAsync(bytes);
  } catch (e) {
    throw corrupt(label, (e as Error).message);
  }
}

/** The error for a file that is not what its format says. */
export function corrupt(label: string, why: string): NbError {
  return new NbError(
    "invalid_input",
    `${label} is damaged or not a valid file of its type (${why.split("\n")[0]})`,
    {
      details: { reason: "corrupt_file" },
    },
  );
}

/** A text entry of the archive, or null when absent. */
export async function zipText(zip: JSZip, path: string): Promise<string | null> {
  const f = zip.file(path);
  return f ? f.async("string") : null;
}
