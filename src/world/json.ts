/** JSON helpers for world values: plain-object checks, strict JSON validation, stable equality. */

export type JsonObject = Record<string, unknown>;

/** True for `{}`-style objects (not arrays, null, class instances). */
export function isPlainObject(v: unknown): v is JsonObject {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** True for a string, finite number, boolean or null. */
export function isScalar(v: unknown): boolean {
  return (
    v === null ||
    typeof v === "string" ||
    typeof v === "boolean" ||
    (typeof v === "number" && Number.isFinite(v))
  );
}

/** Why `v` is not strict JSON (NaN/Infinity, undefined, functions, class instances), with the pointer suffix, or null. */
export function jsonProblem(v: unknown, at = ""): string | null {
  if (isScalar(v)) return null;
  if (typeof v === "number") return `${at || "value"}: numbers must be finite`;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = jsonProblem(v[i], `${at}/${i}`);
      if (p) return p;
    }
    return null;
  }
  if (isPlainObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      const p = jsonProblem(x, `${at}/${k}`);
      if (p) return p;
    }
    return null;
  }
  return `${at || "value"}: not a JSON value (${v === undefined ? "undefined" : typeof v})`;
}

/** JSON with object keys sorted, so equal values give equal strings. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (isPlainObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}

/** Deep equality that ignores object key order. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return stableJson(a) === stableJson(b);
}

/** A deep copy of a JSON value. */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : (structuredClone(v) as T);
}

/** A `subject://<id>` reference string. */
export const REF_PREFIX = "subject://";

/** The target id of a reference string, or null. */
export function refTarget(v: unknown): string | null {
  return typeof v === "string" && v.startsWith(REF_PREFIX) && v.length > REF_PREFIX.length
    ? v.slice(REF_PREFIX.length)
    : null;
}
