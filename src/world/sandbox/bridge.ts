import { isNbError, scrubPaths } from "../../core/errors.js";

/** A synchronous host function; it receives JSON-decoded arguments and returns a JSON-able value. */
export type HostFunction = (...args: unknown[]) => unknown;

/** A tree of host functions, injected into the sandbox as frozen global objects (e.g. `world`). */
export interface HostApi {
  [name: string]: HostFunction | HostApi;
}

/** The shape of the API tree without the functions: 1 marks a callable leaf. */
export interface ApiSpec {
  [name: string]: 1 | ApiSpec;
}

/** Flatten a host API into dotted names and the spec the prelude builds objects from. */
export function flattenApi(api: HostApi): { spec: ApiSpec; functions: Map<string, HostFunction> } {
  const functions = new Map<string, HostFunction>();
  const walk = (node: HostApi, prefix: string): ApiSpec => {
    const spec: ApiSpec = {};
    for (const [key, value] of Object.entries(node)) {
      const name = prefix ? `${prefix}.${key}` : key;
      if (typeof value === "function") {
        functions.set(name, value);
        spec[key] = 1;
      } else {
        spec[key] = walk(value, name);
      }
    }
    return spec;
  };
  return { spec: walk(api, ""), functions };
}

/** JSON.parse that drops `__proto__` keys, so script data cannot reach host prototypes. */
export function parseScriptJson(text: string): unknown {
  return JSON.parse(text, (key, value) => (key === "__proto__" ? undefined : value));
}

/**
 * Run one host function for the script and answer with a JSON envelope: `{ok, value}` or
 * `{ok: false, code, message, …}`. Host errors become script exceptions carrying their message
 * and stable code; nothing else of the host (stack, paths) crosses over.
 */
export function callHost(
  functions: ReadonlyMap<string, HostFunction>,
  name: string,
  argsJson: string,
  hidePaths: readonly string[],
): string {
  const fn = functions.get(name);
  if (!fn) return JSON.stringify({ ok: false, code: "not_found", message: `${name} is not a function` });
  try {
    const args = parseScriptJson(argsJson) as unknown[];
    const value = fn(...args);
    if (
      value !== null &&
      typeof value === "object" &&
      typeof (value as { then?: unknown }).then === "function"
    ) {
      throw new Error(`${name} returned a promise; sandbox host functions must be synchronous`);
    }
    const json = JSON.stringify(value === undefined ? { ok: true } : { ok: true, value });
    return json;
  } catch (e) {
    const message = scrubPaths(e instanceof Error ? e.message : String(e), [...hidePaths]);
    if (isNbError(e)) {
      const out: Record<string, unknown> = { ok: false, code: e.code, message };
      if (e.fields) out.fields = e.fields;
      if (e.details !== undefined) out.details = e.details;
      return JSON.stringify(out);
    }
    return JSON.stringify({ ok: false, code: "internal", message });
  }
}
