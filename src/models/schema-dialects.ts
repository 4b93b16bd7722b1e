/**
 * The tool input schemas in the shape each provider family accepts (schema-rules.ts says which).
 * Tools are written once, as the JSON Schema zod generates; a provider's layer adapts them here.
 */

type Node = Record<string, unknown>;

function isNode(v: unknown): v is Node {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

/** A schema with `null` allowed too. */
function nullable(n: Node): Node {
  if (Array.isArray(n.anyOf)) {
    return n.anyOf.some((b) => isNode(b) && b.type === "null")
      ? n
      : { ...n, anyOf: [...n.anyOf, { type: "null" }] };
  }
  if (typeof n.type === "string" && n.type !== "null") {
    const out: Node = { ...n, type: [n.type, "null"] };
    if (Array.isArray(n.enum)) out.enum = [...n.enum, null];
    return out;
  }
  if (Array.isArray(n.type)) {
    if (n.type.includes("null")) return n;
    const out: Node = { ...n, type: [...n.type, "null"] };
    if (Array.isArray(n.enum)) out.enum = [...n.enum, null];
    return out;
  }
  return { anyOf: [n, { type: "null" }] };
}

/** Thrown inside `toOpenAIStrict` for a schema strict mode cannot express. */
class NotStrict extends Error {}

function strictNode(n: unknown, at: string): unknown {
  if (!isNode(n)) return n;
  const { default: _default, ...rest } = n;
  const out: Node = { ...rest };
  const isObject = n.type === "object" || (Array.isArray(n.type) && n.type.includes("object"));
  if (isObject) {
    if (!isNode(n.properties) || n.additionalProperties !== false) {
      throw new NotStrict(`${at || "/"} is an object with free-form keys`);
    }
    const required = new Set(Array.isArray(n.required) ? n.required : []);
    const props: Node = {};
    for (const [k, v] of Object.entries(n.properties)) {
      const s = strictNode(v, `${at}/properties/${k}`) as Node;
      props[k] = required.has(k) ? s : nullable(s);
    }
    out.properties = props;
    out.required = Object.keys(props);
    out.additionalProperties = false;
  }
  if (n.items !== undefined) out.items = strictNode(n.items, `${at}/items`);
  if (Array.isArray(n.anyOf)) out.anyOf = n.anyOf.map((b, i) => strictNode(b, `${at}/anyOf/${i}`));
  if (isNode(n.$defs)) {
    out.$defs = Object.fromEntries(
      Object.entries(n.$defs).map(([k, v]) => [k, strictNode(v, `${at}/$defs/${k}`)]),
    );
  }
  return out;
}

/**
 * The strict form of a schema for OpenAI strict function calling: every field required, the
 * optional ones made nullable (a model then sends null for "not given", which `fromOpenAIStrict`
 * takes back out), `default` dropped. `{ reason }` when strict mode cannot express it (an object with
 * free-form keys): such a tool is sent without `strict`.
 */
export function toOpenAIStrict(schema: unknown): { schema: unknown } | { reason: string } {
  try {
    return { schema: strictNode(schema, "") };
  } catch (e) {
    if (e instanceof NotStrict) return { reason: e.message };
    throw e;
  }
}

/** True when `schema` (the original one) accepts null itself. */
function acceptsNull(n: unknown): boolean {
  if (!isNode(n)) return true;
  if (n.type === "null" || (Array.isArray(n.type) && n.type.includes("null"))) return true;
  return Array.isArray(n.anyOf) && n.anyOf.some(acceptsNull);
}

/**
 * A strict call's arguments as the original schema expects them: a null the strict form allowed
 * only because the field was optional is taken out, so the field is simply not given.
 */
export function fromOpenAIStrict(schema: unknown, value: unknown): unknown {
  if (!isNode(schema)) return value;
  if (Array.isArray(value)) return value.map((v) => fromOpenAIStrict(schema.items, v));
  if (!isNode(value)) return value;
  const branch = Array.isArray(schema.anyOf)
    ? schema.anyOf.find((b) => isNode(b) && isNode(b.properties))
    : schema;
  if (!isNode(branch) || !isNode(branch.properties)) return value;
  const required = new Set(Array.isArray(branch.required) ? branch.required : []);
  const out: Node = {};
  for (const [k, v] of Object.entries(value)) {
    const prop = branch.properties[k];
    if (v === null && !required.has(k) && !acceptsNull(prop)) continue;
    out[k] = fromOpenAIStrict(prop, v);
  }
  return out;
}

/** Keywords outside Gemini's subset whose loss only loosens what a model is told (zod still checks). */
const GEMINI_DROPS = new Set([
  "additionalProperties",
  "propertyNames",
  "$schema",
  "exclusiveMinimum",
  "exclusiveMaximum",
]);

/** Gemini's node: one type plus `nullable`, string enums, no `additionalProperties`/`const`/`$schema`. */
function geminiNode(n: unknown): unknown {
  if (!isNode(n)) return n;
  const out: Node = {};
  let nullableFlag = false;
  for (const [k, v] of Object.entries(n)) {
    if (GEMINI_DROPS.has(k)) continue;
    if (k === "const") out.enum = [String(v)];
    else if (k === "properties" && isNode(v)) {
      out.properties = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, geminiNode(s)]));
    } else if (k === "items") out.items = geminiNode(v);
    else if (k === "type" && Array.isArray(v)) {
      const types = v.filter((t) => t !== "null");
      nullableFlag = types.length < v.length;
      out.type = types.length === 1 ? types[0] : undefined;
      if (types.length > 1) out.anyOf = types.map((t) => ({ type: t }));
    } else if (k === "anyOf" && Array.isArray(v)) {
      const branches = v.filter((b) => !(isNode(b) && b.type === "null"));
      nullableFlag = branches.length < v.length;
      if (branches.length === 1) Object.assign(out, geminiNode(branches[0]));
      else out.anyOf = branches.map(geminiNode);
    } else if (k === "enum" && Array.isArray(v)) {
      const values = v.filter((x) => x !== null);
      nullableFlag ||= values.length < v.length;
      out.enum = values.every((x) => typeof x === "string") ? values : values.map((x) => JSON.stringify(x));
    } else out[k] = v;
  }
  if (out.type === undefined) delete out.type;
  // Gemini takes enums on strings only: another type's allowed values go into its description.
  if (out.enum !== undefined && out.type !== "string") {
    const values = (out.enum as string[]).join(", ");
    out.description = [out.description, `one of ${values}`].filter(Boolean).join("; ");
    delete out.enum;
  }
  if (nullableFlag) out.nullable = true;
  return out;
}

/** The schema in Gemini's OpenAPI 3.0 subset. */
export function toGemini(schema: unknown): unknown {
  return geminiNode(schema);
}
