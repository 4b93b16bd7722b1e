import { z } from "zod";
import type { ApiRoute } from "./api.js";
import { NAMED_SCHEMAS } from "./responses.js";

type JsonSchema = Record<string, unknown>;

/** Where the document keeps its named schemas; every `$ref` points there. */
const COMPONENTS = "#/components/schemas/";

function jsonSchema(schema: z.ZodType, io: "input" | "output" = "input"): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}

/** One OpenAPI parameter per field of an object schema. */
function parameters(schema: z.ZodType | undefined, where: "path" | "query"): JsonSchema[] {
  if (!schema) return [];
  const doc = jsonSchema(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(doc.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === "path" || (doc.required ?? []).includes(name),
    schema: s,
    ...(typeof s.description === "string" ? { description: s.description } : {}),
  }));
}

function operationId(spec: ApiRoute): string {
  const words = spec.path.replace(/[/:](\w)/g, (_, ch: string) => ch.toUpperCase()).replace(/\W/g, "");
  return `${spec.method}${words}`;
}

/**
 * The response schemas as named components: the shared ones (NAMED_SCHEMAS) under their names, each
 * route's under `<operationId>Response` (a schema two routes share keeps the first name).
 */
function responseComponents(specs: readonly ApiRoute[]): {
  names: Map<z.ZodType, string>;
  schemas: JsonSchema;
} {
  const registry = z.registry<{ id: string }>();
  const names = new Map<z.ZodType, string>();
  const name = (schema: z.ZodType, id: string) => {
    if (names.has(schema)) return;
    names.set(schema, id);
    registry.add(schema, { id });
  };
  for (const [id, schema] of Object.entries(NAMED_SCHEMAS)) name(schema, id);
  for (const spec of specs) if (spec.response) name(spec.response, `${operationId(spec)}Response`);
  const { schemas } = z.toJSONSchema(registry, {
    io: "output",
    unrepresentable: "any",
    uri: (id) => `${COMPONENTS}${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  const out: JsonSchema = {};
  for (const [id, { $schema: _s, $id: _i, ...rest }] of Object.entries(schemas)) out[id] = rest;
  return { names, schemas: out };
}

function operation(spec: ApiRoute, names: Map<z.ZodType, string>): JsonSchema {
  const ok = String(spec.status ?? 200);
  const op: JsonSchema = {
    tags: [spec.tag],
    summary: spec.summary,
    operationId: operationId(spec),
    parameters: [...parameters(spec.params, "path"), ...parameters(spec.query, "query")],
    responses: {
      [ok]: spec.response
        ? {
            description: "OK",
            content: { "application/json": { schema: { $ref: `${COMPONENTS}${names.get(spec.response)}` } } },
          }
        : spec.download
          ? {
              description: "A file to download (Content-Disposition: attachment)",
              content: Object.fromEntries(
                spec.download.map((t) => [t, { schema: { type: "string", contentMediaType: t } }]),
              ),
            }
          : {
              description: "Server-Sent Events",
              content: { "text/event-stream": { schema: { type: "string" } } },
            },
      default: {
        description: "An error with a stable code",
        content: { "application/json": { schema: { $ref: `${COMPONENTS}Error` } } },
      },
    },
  };
  if (spec.body) {
    op.requestBody = { required: true, content: { "application/json": { schema: jsonSchema(spec.body) } } };
  }
  return op;
}

/** The OpenAPI 3.1 document of the registered routes, from the zod schemas that validate them and their answers. */
export function openApiDocument(specs: readonly ApiRoute[]): JsonSchema {
  const { names, schemas } = responseComponents(specs);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const spec of specs) {
    const path = spec.path.replace(/:(\w+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][spec.method] = operation(spec, names);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "NeuroBook",
      version: "0.1.0",
      description:
        "The nbook serve API. Log in with the one-time token nbook serve prints (GET /login?token=…); state-changing requests need an Origin of this server. See docs/serve.md.",
    },
    components: {
      schemas,
      securitySchemes: { session: { type: "apiKey", in: "cookie", name: "nbook_session" } },
    },
    security: [{ session: [] }],
    paths,
  };
}
