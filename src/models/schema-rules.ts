/**
 * What each provider family accepts as a function tool, written from the providers' documented
 * rules, as checkers: each returns the violations of one tool as `<JSON Pointer>: <rule>` (empty
 * when the tool is accepted). The tests run every tool through them after adaptation (dialects.ts).
 *
 * - OpenAI strict function calling (Structured Outputs "supported schemas"): the root is an object;
 *   every object sets `additionalProperties: false` and lists all its properties in `required`
 *   (an optional field is a nullable one); only the supported keywords; at most 10 levels of
 *   nesting, 5000 properties and 1000 enum values.
 * - Anthropic tool use: `input_schema` is a JSON Schema whose root is `type: "object"`, with no
 *   `oneOf`/`anyOf`/`allOf` at the top level; names match `^[a-zA-Z0-9_-]{1,64}$`.
 * - Gemini function declarations: a subset of the OpenAPI 3.0 Schema object: one `type` per node
 *   (nullability is `nullable: true`), `enum` only on strings, no `$ref`, `const`, `oneOf`, `allOf`,
 *   `not` or `additionalProperties`; parameter names start with a letter or `_` and hold only
 *   letters, digits and `_` (at most 64); a function name may also hold `.` and `-`.
 */

type Node = Record<string, unknown>;

export const SCHEMA_FAMILIES = ["openai-strict", "anthropic", "gemini"] as const;
export type SchemaFamily = (typeof SCHEMA_FAMILIES)[number];

const OPENAI_KEYWORDS = new Set([
  "type",
  "description",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$defs",
  "$ref",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);

const GEMINI_KEYWORDS = new Set([
  "type",
  "format",
  "description",
  "nullable",
  "enum",
  "items",
  "properties",
  "required",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "anyOf",
  "default",
  "example",
  "propertyOrdering",
]);

const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
const GEMINI_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array"]);
const OPENAI_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/;
const GEMINI_PARAM = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;

function isNode(v: unknown): v is Node {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

/** Escape one JSON Pointer segment. */
function seg(s: string | number): string {
  return String(s).replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Every sub-schema with its pointer and object depth, the root first. */
function walk(root: unknown, visit: (n: Node, at: string, depth: number) => void): void {
  const go = (n: unknown, at: string, depth: number) => {
    if (!isNode(n)) return;
    visit(n, at, depth);
    const deeper = n.type === "object" || n.properties ? depth + 1 : depth;
    if (isNode(n.properties)) {
      for (const [k, v] of Object.entries(n.properties)) go(v, `${at}/properties/${seg(k)}`, deeper);
    }
    if (isNode(n.items)) go(n.items, `${at}/items`, deeper);
    if (isNode(n.additionalProperties)) go(n.additionalProperties, `${at}/additionalProperties`, deeper);
    for (const key of ["anyOf", "oneOf", "allOf"]) {
      const list = n[key];
      if (Array.isArray(list)) list.forEach((v, i) => go(v, `${at}/${key}/${i}`, depth));
    }
    if (isNode(n.$defs)) for (const [k, v] of Object.entries(n.$defs)) go(v, `${at}/$defs/${seg(k)}`, 0);
  };
  go(root, "", 0);
}

function typesOf(n: Node): unknown[] {
  return Array.isArray(n.type) ? n.type : n.type === undefined ? [] : [n.type];
}

function openaiStrict(name: string, schema: unknown): string[] {
  const out: string[] = [];
  if (!OPENAI_NAME.test(name)) out.push(`/name: must match ${OPENAI_NAME}`);
  if (!isNode(schema) || schema.type !== "object") out.push(": the root must be type object");
  else if (schema.anyOf) out.push(": the root may not be anyOf");
  let properties = 0;
  let enums = 0;
  walk(schema, (n, at, depth) => {
    for (const k of Object.keys(n)) if (!OPENAI_KEYWORDS.has(k)) out.push(`${at}/${seg(k)}: not supported`);
    for (const t of typesOf(n)) if (!JSON_TYPES.has(t as string)) out.push(`${at}/type: unknown type ${t}`);
    if (depth > 10) out.push(`${at}: nested deeper than 10 levels`);
    if (Array.isArray(n.enum)) enums += n.enum.length;
    const isObject = typesOf(n).includes("object") || n.properties !== undefined;
    if (!isObject) return;
    if (n.additionalProperties !== false) out.push(`${at}/additionalProperties: must be false`);
    const keys = isNode(n.properties) ? Object.keys(n.properties) : [];
    properties += keys.length;
    const required = new Set(Array.isArray(n.required) ? n.required : []);
    for (const k of keys) if (!required.has(k)) out.push(`${at}/required: must list ${k}`);
  });
  if (properties > 5000) out.push(": more than 5000 properties");
  if (enums > 1000) out.push(": more than 1000 enum values");
  return out;
}

function anthropic(name: string, schema: unknown): string[] {
  const out: string[] = [];
  if (!OPENAI_NAME.test(name)) out.push(`/name: must match ${OPENAI_NAME}`);
  if (!isNode(schema) || schema.type !== "object") return [...out, ": the root must be type object"];
  for (const k of ["oneOf", "anyOf", "allOf"])
    if (k in schema) out.push(`/${k}: not allowed at the top level`);
  walk(schema, (n, at) => {
    for (const t of typesOf(n)) if (!JSON_TYPES.has(t as string)) out.push(`${at}/type: unknown type ${t}`);
    if ("required" in n && !Array.isArray(n.required)) out.push(`${at}/required: must be an array`);
  });
  return out;
}

function gemini(name: string, schema: unknown): string[] {
  const out: string[] = [];
  if (!GEMINI_NAME.test(name)) out.push(`/name: must match ${GEMINI_NAME}`);
  if (!isNode(schema) || schema.type !== "object") return [...out, ": the root must be type object"];
  walk(schema, (n, at) => {
    for (const k of Object.keys(n)) if (!GEMINI_KEYWORDS.has(k)) out.push(`${at}/${seg(k)}: not supported`);
    if (Array.isArray(n.type)) out.push(`${at}/type: must be one type (nullable: true for null)`);
    else if (n.type !== undefined && !GEMINI_TYPES.has(n.type as string)) {
      out.push(`${at}/type: unknown type ${n.type}`);
    }
    if (n.enum !== undefined && n.type !== "string") out.push(`${at}/enum: only on type string`);
    if (Array.isArray(n.enum) && n.enum.some((v) => typeof v !== "string")) {
      out.push(`${at}/enum: values must be strings`);
    }
    if (isNode(n.properties)) {
      for (const k of Object.keys(n.properties)) {
        if (!GEMINI_PARAM.test(k))
          out.push(`${at}/properties/${seg(k)}: parameter name must match ${GEMINI_PARAM}`);
      }
    }
  });
  return out;
}

const CHECKS: Record<SchemaFamily, (name: string, schema: unknown) => string[]> = {
  "openai-strict": openaiStrict,
  anthropic,
  gemini,
};

/** The violations of a tool (its name and input schema) against a family's rules. */
export function schemaViolations(family: SchemaFamily, name: string, schema: unknown): string[] {
  return CHECKS[family](name, schema);
}
