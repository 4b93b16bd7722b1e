import type { Context, Hono } from "hono";
import { z } from "zod";
import { NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import { readCappedBody } from "./body.js";

/** Largest JSON body a route takes unless it says otherwise. */
export const DEFAULT_BODY_LIMIT = 256 * 1024;

type Method = "get" | "post" | "put" | "delete";

/** One typed route: where it is, what it takes (zod schemas), and what it is for (OpenAPI). */
export interface RouteSpec<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: Method;
  /** Hono path, `:name` for a parameter. */
  path: string;
  tag: string;
  summary: string;
  params?: P;
  query?: Q;
  body?: B;
  /** Body cap in bytes (default DEFAULT_BODY_LIMIT). */
  maxBody?: number;
  /** 200 (default), 201 or 202. */
  status?: 200 | 201 | 202;
}

/**
 * What a route answers on success: a JSON body of a schema (src/serve/responses.ts), an event
 * stream, or a file to download in one of the listed media types.
 */
export type RouteAnswer =
  | { response: z.ZodType; stream?: never; download?: never }
  | { stream: true; response?: never; download?: never }
  | { download: readonly string[]; response?: never; stream?: never };

/** A route as registered: where, what it takes, what it answers. */
export type ApiRoute = RouteSpec & RouteAnswer;

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a handler gets: the validated inputs. */
export interface RouteInput<P, Q, B> {
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
}

/** The routes of the API, registered on a Hono app and listed for the OpenAPI document. */
export class ApiRoutes {
  readonly specs: ApiRoute[] = [];

  constructor(private readonly app: Hono) {}

  /** Register a route; its inputs are validated before the handler runs (`invalid_input` with pointers). */
  add<P extends z.ZodType | undefined, Q extends z.ZodType | undefined, B extends z.ZodType | undefined>(
    spec: ApiRoute & { params?: P; query?: Q; body?: B },
    handler: (c: Context, input: RouteInput<P, Q, B>) => Response | Promise<Response>,
  ): void {
    this.specs.push(spec);
    const limit = spec.maxBody ?? DEFAULT_BODY_LIMIT;
    const run = async (c: Context) => {
      // Read first, whatever the route takes: an over-cap body is answered 413 only once it is read out.
      const text = spec.method === "get" ? "" : await readCappedBody(c.req.raw, limit);
      const params = spec.params ? validate(spec.params, c.req.param(), "params") : undefined;
      const query = spec.query ? validate(spec.query, queryObject(spec.query, c), "query") : undefined;
      const body = spec.body ? validate(spec.body, jsonBody(text), "body") : undefined;
      return handler(c, { params, query, body } as RouteInput<P, Q, B>);
    };
    this.app.on(spec.method.toUpperCase(), spec.path, run);
  }
}

/**
 * Run domain code given (part of) the request body: the field pointers of its errors, relative to
 * what it was given, are made to point into the body (`/initial/x` → `/body/initial/x`).
 */
export function fromBody<T>(fn: () => T | Promise<T>): Promise<T> {
  return fromPart("body", fn);
}

/** fromBody for any part of the request: the query string (`/chapters` → `/query/chapters`) or the body. */
export async function fromPart<T>(part: "body" | "query", fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof NbError) || !e.fields) throw e;
    const fields = e.fields.map((f) => ({ ...f, pointer: `/${part}${f.pointer}` }));
    throw new NbError(e.code, e.message, { fields, details: e.details });
  }
}

/** Parse one part of a request; field pointers start with the part (`/query/at`). */
function validate(schema: z.ZodType, value: unknown, part: string): unknown {
  // reportInput: a wrongly typed value is then told from a missing one ("required").
  const r = schema.safeParse(value, { reportInput: true });
  if (r.success) return r.data;
  const fields = zodFieldErrors(r.error, [part]);
  throw new NbError("invalid_input", `Invalid request ${part}:\n${formatFieldErrors(fields)}`, { fields });
}

function jsonBody(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new NbError("invalid_input", "The request body is not valid JSON", {
      fields: [{ pointer: "/body", message: "not valid JSON" }],
    });
  }
}

/** The zod type under optional/default/nullable wrappers. */
function baseType(schema: z.ZodType): string {
  let s = schema as z.ZodType & { _zod: { def: { type: string; innerType?: z.ZodType } } };
  while (s._zod.def.innerType) s = s._zod.def.innerType as typeof s;
  return s._zod.def.type;
}

/**
 * The query string as the schema's types: numbers and booleans from their text (`true`/`false`),
 * arrays from a repeated key; any other text is left as it is, for the schema to judge.
 */
function queryObject(schema: z.ZodType, c: Context): Record<string, unknown> {
  const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : {};
  const out: Record<string, unknown> = {};
  for (const [key, values] of Object.entries(c.req.queries())) {
    const field = shape[key];
    const type = field ? baseType(field) : "string";
    const one = values[values.length - 1];
    if (type === "array") out[key] = values;
    else if (type === "number" && /^-?\d+(\.\d+)?$/.test(one)) out[key] = Number(one);
    else if (type === "boolean" && (one === "true" || one === "false")) out[key] = one === "true";
    else out[key] = one;
  }
  return out;
}
