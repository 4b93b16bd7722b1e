import type { PatchOp } from "./api.js";
import { jsonProblem, REF_PREFIX } from "./json.js";
import { pointerProblem, segmentsOf } from "./pointer.js";
import {
  freeValueOk,
  opsFor,
  type RefChecker,
  resolvePath,
  valueProblem,
  type WorldSchema,
} from "./schema.js";

/** A patch to check before it is stored. */
export interface PatchDraft {
  subjectId: string;
  path: string;
  op: PatchOp;
  value?: unknown;
}

/** What is wrong with a patch: the field of the patch (`path`, `op`, `value`) and why. */
export interface PatchProblem {
  field: "path" | "op" | "value";
  message: string;
}

/** Subject types must be non-blank words without whitespace or parentheses. */
export function typeNameProblem(type: string): string | null {
  if (!/^[^\s()/]+$/.test(type))
    return "a subject type must be non-empty, without whitespace, parentheses or slashes";
  return null;
}

/**
 * Static checks of one patch against the schema: path syntax, op allowed for the attribute, value
 * type (declared attributes; undeclared ones take scalars). Replay-time failures (missing base,
 * index out of range, reaching through a reference) are found by simulating the fold.
 */
export function checkPatch(
  schema: WorldSchema,
  type: string,
  p: PatchDraft,
  checkRef: RefChecker,
): PatchProblem | null {
  const pp = pointerProblem(p.path);
  if (pp) return { field: "path", message: pp };
  const segs = segmentsOf(p.path);
  const r = resolvePath(schema, type, segs);
  if (r.kind === "invalid") return { field: "path", message: r.reason };
  const spec = r.kind === "declared" ? r.spec : null;
  const allowed = opsFor(spec);
  if (!allowed.includes(p.op)) {
    const what = spec ? `a ${spec.type} attribute` : "an undeclared attribute";
    return {
      field: "op",
      message: `${p.op} is not allowed on ${p.path} (${what}); allowed: ${allowed.join(", ")}`,
    };
  }
  if (p.op !== "remove" && p.value === undefined) return { field: "value", message: `${p.op} needs a value` };
  if (p.value !== undefined) {
    const jp = jsonProblem(p.value);
    if (jp) return { field: "value", message: jp };
  }
  const bad = (message: string | null): PatchProblem | null => (message ? { field: "value", message } : null);
  switch (p.op) {
    case "replace":
      if (spec) return bad(valueProblem(spec, p.value, checkRef));
      return freeValueOk(p.value)
        ? null
        : bad(
            `${p.path} is not declared in the schema, so it takes a scalar (string, number, boolean or null); declare it to store lists or objects`,
          );
    case "increment":
      if (typeof p.value !== "number" || !Number.isFinite(p.value))
        return bad("increment needs a finite number");
      if (spec?.type === "int" && !Number.isSafeInteger(p.value))
        return bad("increment of an int attribute needs a safe integer");
      return null;
    case "append":
      return bad(valueProblem(spec?.of ?? { type: "string" }, p.value, checkRef));
    case "remove":
      if (p.value === undefined) return null;
      if (spec?.type !== "set")
        return bad(
          `remove by value works only on a set; ${p.path} is ${spec ? `a ${spec.type}` : "undeclared"}`,
        );
      return bad(valueProblem(spec.of ?? { type: "string" }, p.value, checkRef));
  }
}

/** A RefChecker over a subject lookup. */
export function refCheckerFrom(lookup: (id: string) => { type: string } | undefined): RefChecker {
  return (id, type) => {
    const s = lookup(id);
    if (!s) return `${REF_PREFIX}${id} names no subject`;
    if (type !== undefined && s.type !== type) return `${REF_PREFIX}${id} is a ${s.type}, not a ${type}`;
    return null;
  };
}
