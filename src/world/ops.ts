import type { PatchOp } from "./api.js";
import { cloneJson, deepEqual, isPlainObject, type JsonObject, refTarget } from "./json.js";
import { isIndexSegment } from "./pointer.js";

/** How the schema reads a path during replay: set semantics, int arithmetic, text-container guard. */
export interface OpSemantics {
  isSet(segs: readonly string[]): boolean;
  isInt(segs: readonly string[]): boolean;
  isTextContainer(segs: readonly string[]): boolean;
}

/** Why a patch could not be applied: the issue label and an instance message. */
export interface OpFailure {
  label: "E1" | "E3" | "E4" | "E5";
  message: string;
}

type Container = JsonObject | unknown[];

function child(c: unknown, seg: string): unknown {
  if (Array.isArray(c)) return isIndexSegment(seg) ? c[Number(seg)] : undefined;
  if (isPlainObject(c)) return Object.hasOwn(c, seg) ? c[seg] : undefined;
  return undefined;
}

function isContainer(v: unknown): v is Container {
  return Array.isArray(v) || isPlainObject(v);
}

const fail = (label: OpFailure["label"], message: string): OpFailure => ({ label, message });

/**
 * Apply one patch to `state` in place. Returns null on success or the failure (state unchanged).
 * Semantics: replace creates missing object parents; increment needs a numeric base; remove is a
 * no-op on a missing path; remove with a value deletes the first equal item of a set; append needs
 * an array and skips duplicates in a set; no path may pass through a `subject://` reference.
 */
export function applyPatch(
  state: JsonObject,
  op: PatchOp,
  segs: readonly string[],
  value: unknown,
  sem: OpSemantics,
): OpFailure | null {
  if (segs.length === 0) return fail("E3", "the root cannot be patched");
  let cur: unknown = state;
  for (let i = 0; i < segs.length - 1; i++) {
    cur = child(cur, segs[i]);
    if (cur === undefined) break;
    const target = refTarget(cur);
    if (target !== null) {
      return fail(
        "E4",
        `/${segs.slice(0, i + 1).join("/")} is a reference to ${target}; change that subject instead of reaching through the reference`,
      );
    }
  }
  const last = segs[segs.length - 1];
  switch (op) {
    case "replace": {
      if (sem.isTextContainer(segs) && !isEmptyContainer(value)) {
        return fail(
          "E5",
          "a text container may only be replaced by an empty [] or {}; add entries one by one",
        );
      }
      let parent: unknown = state;
      for (let i = 0; i < segs.length - 1; i++) {
        let next = child(parent, segs[i]);
        if (next === undefined) {
          if (!isPlainObject(parent))
            return fail("E3", `cannot create /${segs.slice(0, i + 1).join("/")} inside an array`);
          next = {};
          parent[segs[i]] = next;
        }
        if (!isContainer(next))
          return fail("E3", `/${segs.slice(0, i + 1).join("/")} is not an object or array`);
        parent = next;
      }
      const v = cloneJson(value === undefined ? null : value);
      if (Array.isArray(parent)) {
        if (!isIndexSegment(last) || Number(last) > parent.length) {
          return fail("E3", `index ${last} is out of range 0..${parent.length}`);
        }
        parent[Number(last)] = v;
      } else (parent as JsonObject)[last] = v;
      return null;
    }
    case "increment": {
      const parent = resolveParent(state, segs);
      const base = parent === undefined ? undefined : child(parent, last);
      if (typeof base !== "number" || !Number.isFinite(base)) {
        return fail(
          "E1",
          base === undefined ? "no numeric base to increment" : `base is not a number (${typeLabel(base)})`,
        );
      }
      if (typeof value !== "number" || !Number.isFinite(value))
        return fail("E1", "increment needs a finite number");
      const result = base + value;
      if (!Number.isFinite(result)) return fail("E1", "increment result is not finite");
      if (
        sem.isInt(segs) &&
        !(Number.isSafeInteger(base) && Number.isSafeInteger(value) && Number.isSafeInteger(result))
      ) {
        return fail("E1", "int attribute: base, delta and result must be safe integers");
      }
      setChild(parent as Container, last, result);
      return null;
    }
    case "remove": {
      if (value !== undefined) {
        if (!sem.isSet(segs)) return fail("E3", "remove by value works only on a set");
        const arr = resolveValue(state, segs);
        if (arr === undefined) return null;
        if (!Array.isArray(arr)) return fail("E3", "remove by value needs an array");
        const i = arr.findIndex((x) => deepEqual(x, value));
        if (i >= 0) arr.splice(i, 1);
        return null;
      }
      const parent = resolveParent(state, segs);
      if (parent === undefined) return null;
      if (Array.isArray(parent)) {
        if (!isIndexSegment(last)) return fail("E3", `"${last}" is not an array index`);
        if (Number(last) < parent.length) parent.splice(Number(last), 1);
        return null;
      }
      if (isPlainObject(parent)) {
        delete parent[last];
        return null;
      }
      return fail("E3", `/${segs.slice(0, -1).join("/")} is not an object or array`);
    }
    case "append": {
      const arr = resolveValue(state, segs);
      if (!Array.isArray(arr))
        return fail(
          "E1",
          arr === undefined ? "no array base to append to" : `base is not an array (${typeLabel(arr)})`,
        );
      if (sem.isSet(segs) && arr.some((x) => deepEqual(x, value))) return null;
      arr.push(cloneJson(value));
      return null;
    }
  }
}

function resolveParent(state: JsonObject, segs: readonly string[]): unknown {
  let cur: unknown = state;
  for (let i = 0; i < segs.length - 1 && cur !== undefined; i++) cur = child(cur, segs[i]);
  return cur;
}

/** The value at a path, or undefined. */
export function resolveValue(state: unknown, segs: readonly string[]): unknown {
  let cur: unknown = state;
  for (let i = 0; i < segs.length && cur !== undefined; i++) cur = child(cur, segs[i]);
  return cur;
}

function setChild(parent: Container, key: string, v: unknown): void {
  if (Array.isArray(parent)) parent[Number(key)] = v;
  else parent[key] = v;
}

function isEmptyContainer(v: unknown): boolean {
  return (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

function typeLabel(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}
