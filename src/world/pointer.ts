import { parsePointer, toPointer } from "../core/json-pointer.js";

/** Why `path` is not an acceptable patch path (non-empty, `/`-rooted, no empty segment, valid `~` escapes, no `__proto__`), or null. */
export function pointerProblem(path: string): string | null {
  if (path.length === 0) return "path must not be empty";
  if (path.trim() !== path) return "path must not start or end with whitespace";
  if (!path.startsWith("/")) return 'path must be a JSON Pointer starting with "/"';
  if (path.includes("//") || path.endsWith("/")) return "path must not contain an empty segment";
  if (/~(?![01])/.test(path)) return 'path may use "~" only as "~0" or "~1"';
  if (/\/__proto__(?:\/|$)/.test(path)) return 'path must not use the segment "__proto__"';
  return null;
}

/** Decoded segments of a valid patch path. */
export function segmentsOf(path: string): string[] {
  return parsePointer(path);
}

/** Re-encode segments as a pointer. */
export function pointerOf(segments: readonly string[]): string {
  return toPointer(segments);
}

/**
 * The top-level attribute a path addresses: its first segment, decoded. Computed as the database
 * computes `patches.top`, so a stored path that is not a valid pointer gets the same answer.
 */
export function topAttr(path: string): string {
  const rest = path.slice(1);
  const end = rest.indexOf("/");
  return (end >= 0 ? rest.slice(0, end) : rest).replace(/~1/g, "/").replace(/~0/g, "~");
}

/** True when one path is a prefix of the other, segment-wise (the two touch the same data). */
export function pathsOverlap(a: readonly string[], b: readonly string[]): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** True when `prefix` equals or contains `path`. */
export function isPrefixOf(prefix: readonly string[], path: readonly string[]): boolean {
  return prefix.length <= path.length && pathsOverlap(prefix, path);
}

/** A canonical array index segment (`0`, `1`, … without leading zeros). */
export function isIndexSegment(seg: string): boolean {
  return /^(0|[1-9]\d*)$/.test(seg);
}
