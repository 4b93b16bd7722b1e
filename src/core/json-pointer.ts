/** Encode one JSON Pointer segment (RFC 6901: `~` → `~0`, `/` → `~1`). */
export function escapePointerSegment(seg: string | number): string {
  return String(seg).replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Build a JSON Pointer from path segments (`[] → ""`, `["a", 0] → "/a/0"`). */
export function toPointer(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((s) => `/${escapePointerSegment(typeof s === "symbol" ? String(s.description) : s)}`)
    .join("");
}

/** Split a JSON Pointer into decoded segments; throws on a pointer that does not start with `/`. */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new Error(`JSON Pointer must start with "/": ${pointer}`);
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}
