import { escapePointerSegment } from "../core/json-pointer.js";
import { isPlainObject, refTarget } from "./json.js";
import { pointerOf } from "./pointer.js";
import type { AttrSpec, TypeSpec } from "./schema.js";

/** A reference or text entry found in a subject's state. */
export interface Entry {
  kind: "ref" | "text";
  /** JSON Pointer of the value. */
  attr: string;
  /** The target id (ref) or the text (text). */
  value: string;
}

/** Stable identity of an entry, for diffing two states. */
export function entryKey(kind: Entry["kind"], attr: string, value: string): string {
  return `${kind}\u0000${attr}\u0000${value}`;
}

/**
 * References (any `subject://` string) and text entries (strings at declared `text` locations)
 * under the given top-level attributes of a state.
 */
export function collectEntries(
  state: Record<string, unknown>,
  tops: Iterable<string>,
  type: TypeSpec | undefined,
): Map<string, Entry> {
  const out = new Map<string, Entry>();
  for (const top of tops) {
    if (Object.hasOwn(state, top)) walk(state[top], `/${escapePointerSegment(top)}`, type?.attrs[top], out);
  }
  return out;
}

function walk(v: unknown, attr: string, spec: AttrSpec | undefined, out: Map<string, Entry>): void {
  if (typeof v === "string") {
    const target = refTarget(v);
    if (target !== null) out.set(entryKey("ref", attr, target), { kind: "ref", attr, value: target });
    else if (spec?.type === "text" && v.trim() !== "")
      out.set(entryKey("text", attr, v), { kind: "text", attr, value: v });
    return;
  }
  if (Array.isArray(v)) {
    const item = spec?.type === "list" || spec?.type === "set" ? spec.of : undefined;
    for (let i = 0; i < v.length; i++) walk(v[i], `${attr}/${i}`, item, out);
    return;
  }
  if (isPlainObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      const f = spec?.type === "object" ? spec.fields?.[k] : spec?.type === "record" ? spec.of : undefined;
      walk(x, `${attr}/${escapePointerSegment(k)}`, f, out);
    }
  }
}

/** Entries of the items `from..end` of the array at top-level attribute `top` (what appends added). */
export function collectAppended(
  state: Record<string, unknown>,
  top: string,
  from: number,
  type: TypeSpec | undefined,
): Map<string, Entry> {
  const out = new Map<string, Entry>();
  const arr = state[top];
  if (!Array.isArray(arr)) return out;
  const spec = type?.attrs[top];
  const item = spec?.type === "list" || spec?.type === "set" ? spec.of : undefined;
  const base = `/${escapePointerSegment(top)}`;
  for (let i = Math.max(0, from); i < arr.length; i++) walk(arr[i], `${base}/${i}`, item, out);
  return out;
}

/** Call `visit` for each non-null value at a declared `ref` location of a state. */
export function walkDeclaredRefs(
  state: Record<string, unknown>,
  type: TypeSpec | undefined,
  visit: (attr: string, value: unknown, to: string | undefined) => void,
): void {
  if (!type) return;
  const go = (v: unknown, path: string[], spec: AttrSpec) => {
    if (v === undefined || v === null) return;
    if (spec.type === "ref") visit(pointerOf(path), v, spec.to);
    else if ((spec.type === "list" || spec.type === "set") && Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) go(v[i], [...path, String(i)], spec.of as AttrSpec);
    } else if (spec.type === "object" && isPlainObject(v)) {
      for (const [k, f] of Object.entries(spec.fields ?? {}))
        if (Object.hasOwn(v, k)) go(v[k], [...path, k], f);
    } else if (spec.type === "record" && isPlainObject(v)) {
      for (const [k, x] of Object.entries(v)) go(x, [...path, k], spec.of as AttrSpec);
    }
  };
  for (const [name, spec] of Object.entries(type.attrs))
    if (holdsRef(spec) && Object.hasOwn(state, name)) go(state[name], [name], spec);
}

/** True when a declared attribute can hold a reference somewhere inside it. */
export function holdsRef(spec: AttrSpec | undefined): boolean {
  if (!spec) return false;
  return spec.type === "ref" || holdsRef(spec.of) || Object.values(spec.fields ?? {}).some(holdsRef);
}
