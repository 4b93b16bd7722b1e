import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { NbError } from "../core/errors.js";
import { readTextSafeSync } from "../workspace/safe-read.js";
import type { AttrDescription, PatchOp, SchemaDescription } from "./api.js";
import { isPlainObject, isScalar, REF_PREFIX, stableJson } from "./json.js";
import { isIndexSegment } from "./pointer.js";

/** The attribute types a schema may declare. */
export const ATTR_TYPES = [
  "string",
  "int",
  "float",
  "boolean",
  "enum",
  "ref",
  "list",
  "set",
  "object",
  "record",
  "text",
] as const;
export type AttrType = (typeof ATTR_TYPES)[number];

/** One declared attribute (or item/field) after loading. */
export interface AttrSpec {
  type: AttrType;
  description?: string;
  default?: unknown;
  /** enum */
  values?: Array<string | number | boolean>;
  /** ref: the target subject type (any type when absent) */
  to?: string;
  /** list, set, record: the item type */
  of?: AttrSpec;
  /** object: the fixed fields */
  fields?: Record<string, AttrSpec>;
}

export interface TypeSpec {
  description?: string;
  attrs: Record<string, AttrSpec>;
}

/** A loaded schema; `types` empty = permissive. `fingerprint` changes whenever the file does. */
export interface WorldSchema {
  source: "file" | "none";
  types: Record<string, TypeSpec>;
  fingerprint: string;
}

const SCALAR_SHORTHAND = /^(string|int|float|boolean|text)$|^ref(:[^\s()]+)?$/;

type RawAttr = string | { [k: string]: unknown };
const rawAttr: z.ZodType<RawAttr> = z.lazy(() =>
  z.union([
    z.string().regex(SCALAR_SHORTHAND, "expected string, int, float, boolean, text, ref or ref:<type>"),
    z
      .object({
        type: z.enum(ATTR_TYPES),
        description: z.string().optional(),
        default: z.unknown().optional(),
        values: z
          .array(z.union([z.string(), z.number(), z.boolean()]))
          .min(1)
          .optional(),
        to: z.string().min(1).optional(),
        of: rawAttr.optional(),
        fields: z.record(z.string(), rawAttr).optional(),
      })
      .strict(),
  ]),
);
const rawSchema = z
  .object({
    types: z.record(
      z.string().regex(/^[^\s()/]+$/, "type names have no whitespace, parentheses or slashes"),
      z
        .object({
          description: z.string().optional(),
          attrs: z.record(z.string().min(1), rawAttr).default({}),
        })
        .strict(),
    ),
  })
  .strict();

/**
 * A map without a prototype, so a type, attribute or field named `constructor`, `toString` or
 * `__proto__` is only ever one the schema declares.
 */
function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** The empty, permissive schema used when schema.yaml is missing. */
export const PERMISSIVE_SCHEMA: WorldSchema = { source: "none", types: dict(), fingerprint: "none" };

/** The largest schema.yaml read. */
const MAX_SCHEMA_BYTES = 4 * 1024 * 1024;

/**
 * Load `world-engine/schema.yaml`; missing file = permissive; malformed file = `config_error` naming
 * the line. Read through the safe read: the file must really be inside `root` (a real path; by
 * default the folder holding it), so a FIFO, a device or a link out is an error, never a hang or
 * another file's text.
 */
export function loadSchemaFile(file: string, root = realFolderOf(file)): WorldSchema {
  // No folder, so no file.
  if (root === null) return PERMISSIVE_SCHEMA;
  const text = readTextSafeSync(file, {
    label: "world-engine/schema.yaml",
    root,
    maxBytes: MAX_SCHEMA_BYTES,
  });
  return text === null ? PERMISSIVE_SCHEMA : parseSchema(text);
}

function realFolderOf(file: string): string | null {
  try {
    return realpathSync(dirname(file));
  } catch {
    return null;
  }
}

/** Parse schema YAML text (see loadSchemaFile). */
export function parseSchema(text: string, fileLabel = "world-engine/schema.yaml"): WorldSchema {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineOf = (path: ReadonlyArray<string | number>): number => {
    for (let n = path.length; n >= 0; n--) {
      const node = doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined;
      if (node && typeof node === "object" && node.range) return lines.linePos(node.range[0]).line;
    }
    return 1;
  };
  const fail = (line: number, msg: string): never => {
    throw new NbError("config_error", `${fileLabel}: line ${line}: ${msg}`, { details: { line } });
  };
  if (doc.errors.length) {
    const e = doc.errors[0];
    fail(lines.linePos(e.pos[0]).line, e.message.split("\n")[0]);
  }
  const data = doc.toJS() ?? { types: {} };
  const r = rawSchema.safeParse(data);
  if (!r.success) {
    const issue = r.error.issues[0];
    const path = issue.path.map((p) => (typeof p === "number" ? p : String(p)));
    if (issue.code === "unrecognized_keys") path.push(issue.keys[0]);
    fail(lineOf(path), `${path.join(".") || "(top)"}: ${issue.message}`);
  }
  const parsed = r.data as {
    types: Record<string, { description?: string; attrs: Record<string, RawAttr> }>;
  };
  const typeNames = new Set(Object.keys(parsed.types));
  const types = dict<TypeSpec>();
  for (const [tname, t] of Object.entries(parsed.types)) {
    const attrs = dict<AttrSpec>();
    for (const [aname, raw] of Object.entries(t.attrs)) {
      const where = ["types", tname, "attrs", aname];
      attrs[aname] = buildSpec(raw, where, typeNames, (p, m) =>
        fail(lineOf(p), `${p.slice(1).join(".")}: ${m}`),
      );
    }
    types[tname] = { description: t.description, attrs };
  }
  return { source: "file", types, fingerprint: `file:${stableJson(types)}` };
}

function buildSpec(
  raw: RawAttr,
  where: string[],
  typeNames: Set<string>,
  fail: (path: string[], msg: string) => never,
): AttrSpec {
  if (typeof raw === "string") {
    if (raw.startsWith("ref"))
      return checkRef({ type: "ref", to: raw.slice(4) || undefined }, where, typeNames, fail);
    return { type: raw as AttrType };
  }
  const spec: AttrSpec = { type: raw.type as AttrType };
  if (typeof raw.description === "string") spec.description = raw.description;
  const needs = (key: string, ok: boolean) => {
    if (!ok)
      fail(
        [...where, key],
        `"${key}" is ${raw[key] === undefined ? "required" : "not allowed"} for type ${spec.type}`,
      );
  };
  const isContainer = spec.type === "list" || spec.type === "set" || spec.type === "record";
  needs("of", isContainer === (raw.of !== undefined));
  needs("values", (spec.type === "enum") === (raw.values !== undefined));
  needs("fields", (spec.type === "object") === (raw.fields !== undefined));
  if (raw.to !== undefined && spec.type !== "ref") needs("to", false);
  if (spec.type === "enum") {
    const values = raw.values as Array<string | number | boolean>;
    if (new Set(values.map((v) => stableJson(v))).size !== values.length)
      fail([...where, "values"], "enum values must be unique");
    spec.values = values;
  }
  if (spec.type === "ref") {
    spec.to = raw.to as string | undefined;
    checkRef(spec, where, typeNames, fail);
  }
  if (isContainer) spec.of = buildSpec(raw.of as RawAttr, [...where, "of"], typeNames, fail);
  if (spec.type === "object") {
    spec.fields = dict();
    for (const [f, fr] of Object.entries(raw.fields as Record<string, RawAttr>)) {
      spec.fields[f] = buildSpec(fr, [...where, "fields", f], typeNames, fail);
    }
  }
  if ("default" in raw && raw.default !== undefined) {
    const problem = valueProblem(spec, raw.default, () => null);
    if (problem) fail([...where, "default"], `default ${problem}`);
    spec.default = raw.default;
  }
  return spec;
}

function checkRef(
  spec: AttrSpec,
  where: string[],
  typeNames: Set<string>,
  fail: (p: string[], m: string) => never,
): AttrSpec {
  if (spec.to !== undefined && !typeNames.has(spec.to))
    fail(where, `ref target type "${spec.to}" is not declared`);
  return spec;
}

/** Checks a referenced subject: returns a problem (unknown subject, wrong type) or null. */
export type RefChecker = (targetId: string, type: string | undefined) => string | null;

/** Why `value` does not fit `spec` (null accepted for scalars other than text), or null. */
export function valueProblem(spec: AttrSpec, value: unknown, checkRef: RefChecker, at = ""): string | null {
  const where = at ? ` at ${at}` : "";
  const expect = (what: string) => `must be ${what}${where}, got ${describeValue(value)}`;
  if (value === null && spec.type !== "text" && !isCollection(spec)) return null;
  switch (spec.type) {
    case "string":
      return typeof value === "string" ? null : expect("a string");
    case "text":
      return typeof value === "string" && value.trim() !== "" ? null : expect("a non-empty text string");
    case "int":
      return Number.isSafeInteger(value) ? null : expect("a safe integer");
    case "float":
      return typeof value === "number" && Number.isFinite(value) ? null : expect("a finite number");
    case "boolean":
      return typeof value === "boolean" ? null : expect("true or false");
    case "enum":
      return spec.values?.some((v) => v === value) ? null : expect(`one of ${JSON.stringify(spec.values)}`);
    case "ref": {
      if (typeof value !== "string" || !value.startsWith(REF_PREFIX) || value.length === REF_PREFIX.length) {
        return expect(`a reference "subject://<id>"${spec.to ? ` to a ${spec.to}` : ""}`);
      }
      const p = checkRef(value.slice(REF_PREFIX.length), spec.to);
      return p ? `${p}${where}` : null;
    }
    case "list":
    case "set": {
      if (!Array.isArray(value)) return expect(`a ${spec.type} (array)`);
      const seen = new Set<string>();
      for (let i = 0; i < value.length; i++) {
        const p = valueProblem(spec.of as AttrSpec, value[i], checkRef, `${at}/${i}`);
        if (p) return p;
        if (spec.type === "set") {
          const key = stableJson(value[i]);
          if (seen.has(key)) return `a set must not hold duplicates${where} (item ${i})`;
          seen.add(key);
        }
      }
      return null;
    }
    case "object": {
      if (!isPlainObject(value)) return expect("an object");
      for (const [k, v] of Object.entries(value)) {
        const f = spec.fields?.[k];
        if (!f)
          return `unknown field "${k}"${where}; declared fields: ${Object.keys(spec.fields ?? {}).join(", ") || "none"}`;
        const p = valueProblem(f, v, checkRef, `${at}/${k}`);
        if (p) return p;
      }
      return null;
    }
    case "record": {
      if (!isPlainObject(value)) return expect("an object (record)");
      for (const [k, v] of Object.entries(value)) {
        const p = valueProblem(spec.of as AttrSpec, v, checkRef, `${at}/${k}`);
        if (p) return p;
      }
      return null;
    }
  }
}

function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return `string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (typeof v === "object") return "an object";
  return `${typeof v} ${String(v)}`;
}

function isCollection(spec: AttrSpec): boolean {
  return spec.type === "list" || spec.type === "set" || spec.type === "object" || spec.type === "record";
}

/** What a path points at under a subject type. */
export type Resolved =
  | { kind: "declared"; spec: AttrSpec }
  /** Under an undeclared attribute: values must be scalars. */
  | { kind: "free" }
  /** Below a declared scalar, or an unknown field of a fixed object. */
  | { kind: "invalid"; reason: string };

/** Resolve a path (decoded segments) against a subject type's declared attributes. */
export function resolvePath(schema: WorldSchema, type: string, segs: readonly string[]): Resolved {
  const t = schema.types[type];
  let spec = t?.attrs[segs[0]];
  if (!spec) return { kind: "free" };
  for (let i = 1; i < segs.length; i++) {
    const seg = segs[i];
    if (spec.type === "object") {
      const f: AttrSpec | undefined = spec.fields?.[seg];
      if (!f) return { kind: "invalid", reason: `"${seg}" is not a field of /${segs.slice(0, i).join("/")}` };
      spec = f;
    } else if (spec.type === "record") {
      spec = spec.of as AttrSpec;
    } else if (spec.type === "list" || spec.type === "set") {
      if (!isIndexSegment(seg)) return { kind: "invalid", reason: `"${seg}" is not an array index` };
      spec = spec.of as AttrSpec;
    } else {
      return { kind: "invalid", reason: `/${segs.slice(0, i).join("/")} is a ${spec.type}, not a container` };
    }
  }
  return { kind: "declared", spec };
}

/** Which ops a declared attribute accepts. */
export function opsFor(spec: AttrSpec | null): readonly PatchOp[] {
  if (!spec) return ["replace", "increment", "remove"];
  switch (spec.type) {
    case "int":
    case "float":
      return ["replace", "increment", "remove"];
    case "list":
    case "set":
      return ["replace", "append", "remove"];
    default:
      return ["replace", "remove"];
  }
}

/** True when the spec is a list/set/record of text entries (a text container). */
export function isTextContainer(spec: AttrSpec): boolean {
  return (spec.type === "list" || spec.type === "set" || spec.type === "record") && spec.of?.type === "text";
}

/** True when an attribute holds text entries anywhere inside it. */
export function holdsText(spec: AttrSpec | undefined): boolean {
  if (!spec) return false;
  if (spec.type === "text") return true;
  if (spec.of) return holdsText(spec.of);
  if (spec.fields) return Object.values(spec.fields).some(holdsText);
  return false;
}

/** Default value of an attribute: its `default`, `[]` for lists/sets, fields' defaults for objects; undefined = none. */
export function defaultOf(spec: AttrSpec): unknown {
  if (spec.default !== undefined) return spec.default;
  if (spec.type === "list" || spec.type === "set") return [];
  if (spec.type === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, f] of Object.entries(spec.fields ?? {})) {
      const d = defaultOf(f);
      if (d !== undefined) out[k] = d;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return undefined;
}

/** The `[attr, value]` defaults a new subject of `type` starts with. */
export function defaultsFor(schema: WorldSchema, type: string): Array<[string, unknown]> {
  const t = schema.types[type];
  if (!t) return [];
  const out: Array<[string, unknown]> = [];
  for (const [name, spec] of Object.entries(t.attrs)) {
    const d = defaultOf(spec);
    if (d !== undefined) out.push([name, d]);
  }
  return out;
}

/** True when a free (undeclared) value is acceptable: a JSON scalar. */
export function freeValueOk(v: unknown): boolean {
  return isScalar(v);
}

/** A schema as data, for `world.schema.describe()`. */
export function describeSchema(schema: WorldSchema): SchemaDescription {
  const attr = (name: string, s: AttrSpec): AttrDescription => {
    const d: AttrDescription = { name, type: s.type };
    if (s.of) d.of = attr("item", s.of);
    if (s.to) d.to = s.to;
    if (s.values) d.values = s.values;
    if (s.fields) d.fields = Object.entries(s.fields).map(([k, f]) => attr(k, f));
    const def = defaultOf(s);
    if (def !== undefined) d.default = def;
    if (s.description) d.description = s.description;
    return d;
  };
  return {
    source: schema.source,
    types: Object.entries(schema.types).map(([type, t]) => ({
      type,
      ...(t.description ? { description: t.description } : {}),
      attrs: Object.entries(t.attrs).map(([n, s]) => attr(n, s)),
    })),
  };
}
