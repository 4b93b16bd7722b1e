import { z } from "zod";
import { ERROR_CODES } from "../core/errors.js";
import type { RouteSpec } from "./api.js";

type JsonSchema = Record<string, unknown>;

const ErrorSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "fields"],
      properties: {
        code: { type: "string", enum: [...ERROR_CODES] },
        message: { type: "string" },
        fields: {
          type: "array",
          items: {
            type: "object",
            required: ["pointer", "message"],
            properties: { pointer: { type: "string" }, message: { type: "string" } },
          },
        },
        details: {},
      },
    },
  },
};

function jsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
  }) as JsonSchema;
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

function operation(spec: RouteSpec): JsonSchema {
  const ok = String(spec.status ?? 200);
  const op: JsonSchema = {
    tags: [spec.tag],
    summary: spec.summary,
    operationId: `${spec.method}${spec.path.replace(/[/:](\w)/g, (_, ch: string) => ch.toUpperCase()).replace(/\W/g, "")}`,
    parameters: [...parameters(spec.params, "path"), ...parameters(spec.query, "query")],
    responses: {
      [ok]: spec.stream
        ? { description: "Server-Sent Events", content: { "text/event-stream": {} } }
        : { description: "OK", content: { "application/json": {} } },
      default: {
        description: "An error with a stable code",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
    },
  };
  if (spec.body) {
    op.requestBody = { required: true, content: { "application/json": { schema: jsonSchema(spec.body) } } };
  }
  return op;
}

/** The OpenAPI 3.1 document of the registered routes, from the zod schemas that validate them. */
export function openApiDocument(specs: readonly RouteSpec[]): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const spec of specs) {
    const path = spec.path.replace(/:(\w+)/g, "{$1}");
    paths[path] ??= {};
    paths[path][spec.method] = operation(spec);
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
      schemas: { Error: ErrorSchema },
      securitySchemes: { session: { type: "apiKey", in: "cookie", name: "nbook_session" } },
    },
    security: [{ session: [] }],
    paths,
  };
}
