// Pictures a book carries: the cover and the images its chapters show, read from the project (never
// from outside it) and typed by their signature. EPUB's core media types: JPEG, PNG and GIF.
import { join, posix } from "node:path";
import type { Project } from "../../workspace/project.js";
import { readFileSafeSync } from "../../workspace/safe-read.js";

const MAX_PICTURE_BYTES = 16 * 1024 * 1024;

export interface Picture {
  /** Project-relative path it was read from. */
  path: string;
  bytes: Uint8Array;
  mediaType: "image/jpeg" | "image/png" | "image/gif";
  extension: "jpg" | "png" | "gif";
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function typeOf(bytes: Uint8Array): Pick<Picture, "mediaType" | "extension"> | null {
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return { mediaType: "image/jpeg", extension: "jpg" };
  if (PNG.every((b, i) => bytes[i] === b)) return { mediaType: "image/png", extension: "png" };
  if (
    Buffer.from(bytes.subarray(0, 6))
      .toString("latin1")
      .match(/^GIF8[79]a$/)
  )
    return { mediaType: "image/gif", extension: "gif" };
  return null;
}

/** How a picture read failed: not there (or not a file of the project), or not a picture a book can carry. */
export type PictureMiss = "missing" | "not_a_picture";

/** The picture at a project-relative path: refused outside the project, through links, or when too big. */
export function readPicture(project: Project, rel: string): Picture | PictureMiss {
  const path = posix.normalize(rel);
  if (path.startsWith("../") || path === ".." || path.startsWith("/")) return "missing";
  let bytes: Buffer | null;
  try {
    bytes = readFileSafeSync(join(project.root, ...path.split("/")), {
      label: path,
      root: project.realRoot,
      maxBytes: MAX_PICTURE_BYTES,
    });
  } catch {
    return "missing";
  }
  if (!bytes) return "missing";
  const type = typeOf(bytes);
  return type ? { path, bytes, ...type } : "not_a_picture";
}

/**
 * The project path an image source of a chapter file names: a relative URL (no scheme, no leading
 * slash), read from the chapter's folder, its query and fragment left off. Null for anything else.
 */
export function pictureSource(partPath: string, src: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(src) || src.startsWith("/")) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(src.replace(/[?#].*$/, ""));
  } catch {
    return null;
  }
  return decoded ? posix.join(posix.dirname(partPath), decoded) : null;
}
