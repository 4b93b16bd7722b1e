/**
 * The JSON Schema a model is sent for a tool's input, made from the schema zod generates: the same
 * shape with the validation-only bounds left out. Length and item limits and the safe-integer range
 * are checked by zod on every call anyway (a call past them gets a field error with its JSON Pointer),
 * so sending them on every turn only costs tokens, and several providers' schema subsets refuse them.
 */

type Schema = Record<string, unknown>;

/** Keywords a call is validated against but that do not tell a model what to send. */
const VALIDATION_ONLY = new Set([
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "exclusiveMinimum",
  "exclusiveMaximum",
]);

const SAFE = Number.MAX_SAFE_INTEGER;

/** Keywords whose value is a map of sub-schemas. */
const SCHEMA_MAPS = new Set(["properties", "$defs", "definitions"]);

/** `anyOf: [{type: t, …}, {type: "null"}]` as `type: [t, "null"]` when the first holds only plain keywords. */
function foldNullable(o: Schema): Schema {
  const any = o.anyOf;
  if (!Array.isArray(any) || any.length !== 2) return o;
  const [a, b] = any as Schema[];
  if (b?.type !== "null" || Object.keys(b).length !== 1 || typeof a?.type !== "string") return o;
  if (!Object.keys(a).every((k) => k === "type" || k === "enum" || k === "description")) return o;
  const { anyOf: _fold, ...rest } = o;
  const out: Schema = { ...rest, type: [a.type, "null"] };
  if (Array.isArray(a.enum)) out.enum = [...a.enum, null];
  if (a.description !== undefined && out.description === undefined) out.description = a.description;
  return out;
}

/** The model-facing form of a generated input schema (see the module comment). */
export function modelSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(modelSchema);
  if (!schema || typeof schema !== "object") return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema as Schema)) {
    if (VALIDATION_ONLY.has(k)) continue;
    if ((k === "maximum" && v === SAFE) || (k === "minimum" && v === -SAFE)) continue;
    out[k] = SCHEMA_MAPS.has(k)
      ? Object.fromEntries(Object.entries(v as Schema).map(([n, s]) => [n, modelSchema(s)]))
      : modelSchema(v);
  }
  return foldNullable(out);
}
