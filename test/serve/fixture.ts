import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Hono } from "hono";
import { z } from "zod";
import { readSampleSeed, seedSample } from "../../src/sample/seed.js";
import type { ApiRoute, ApiRoutes } from "../../src/serve/api.js";
import { createServeApp } from "../../src/serve/app.js";
import { AuthGate } from "../../src/serve/auth.js";
import { ServeHub } from "../../src/serve/hub.js";
import type { StreamLimits } from "../../src/serve/sse.js";
import { sampleNovelDir } from "../../src/workspace/workspace.js";
import { makeTestBed, type TestBed } from "../helpers.js";

/** The port the in-process app believes it listens on (nothing listens: requests go through app.request). */
export const PORT = 7330;
export const ORIGIN = `http://127.0.0.1:${PORT}`;

/** An in-process `nbook serve` app on a temporary workspace with one project, `novel`. */
export interface ServeFixture {
  bed: TestBed;
  hub: ServeHub;
  gate: AuthGate;
  app: Hono;
  routes: ApiRoutes;
  webRoot: string;
  /** A logged-in browser's cookie header. */
  cookie: string;
  /** A request as the logged-in browser (Origin set on state-changing methods). */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Stop this server and start a new one on the same workspace and script (a restart), logged in again. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Log in with the gate's token and return the cookie header. */
export async function login(app: Hono, gate: AuthGate): Promise<string> {
  const res = await app.request(`${ORIGIN}/login?token=${gate.loginToken}`);
  if (res.status !== 303) throw new Error(`login failed: ${res.status}`);
  const set = res.headers.get("set-cookie") ?? "";
  return set.split(";")[0];
}

export async function serveFixture(
  opts: {
    sample?: boolean;
    /** Turns of a scripted model every session runs on (docs/scripted-model.md). */
    script?: unknown[];
    limits?: Partial<StreamLimits>;
    passwordHash?: string;
  } = {},
): Promise<ServeFixture> {
  const bed = makeTestBed("novel", { sample: opts.sample ?? false });
  // The sample's world and plot, as `nbook project create --sample` seeds them.
  if (opts.sample) await seedSample(bed.project, readSampleSeed(`${sampleNovelDir("en")}.seed.yaml`));
  const webRoot = join(bed.dir, "web");
  mkdirSync(join(webRoot, "assets"), { recursive: true });
  writeFileSync(join(webRoot, "index.html"), "<!doctype html><title>NeuroBook</title><div id=app></div>");
  writeFileSync(join(webRoot, "assets", "app-abc123.js"), "console.log('workbench')");
  let script: string | undefined;
  if (opts.script) {
    script = join(bed.dir, "script.json");
    writeFileSync(script, JSON.stringify({ turns: opts.script }));
  }
  const start = async () => {
    const hub = new ServeHub({ workspace: bed.ws, script, limits: opts.limits, log: () => {} });
    const gate = new AuthGate({ host: "127.0.0.1", port: PORT, passwordHash: opts.passwordHash ?? null });
    const { app, routes } = createServeApp({ hub, gate, webRoot });
    return { hub, gate, app, routes, cookie: await login(app, gate) };
  };
  const fx: ServeFixture = {
    bed,
    ...(await start()),
    webRoot,
    async api(method, path, body, headers = {}) {
      const { app, cookie } = fx;
      const h: Record<string, string> = { cookie, ...headers };
      if (method !== "GET" && !("origin" in headers)) h.origin = ORIGIN;
      if (body !== undefined) h["content-type"] = "application/json";
      const res = await app.request(`${ORIGIN}${path}`, {
        method,
        headers: h,
        ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
      });
      await expectDeclaredAnswer(fx.routes.specs, method, path, res);
      return res;
    },
    async restart() {
      await fx.hub.close();
      Object.assign(fx, await start());
    },
    async close() {
      await fx.hub.close();
      bed.cleanup();
    },
  };
  return fx;
}

/**
 * Hold every successful JSON answer of the fixture to the response schema its route declares (the
 * one the OpenAPI document publishes and the workbench types itself by): a field a route adds, drops
 * or retypes without its schema fails the test that met it.
 */
async function expectDeclaredAnswer(specs: readonly ApiRoute[], method: string, path: string, res: Response) {
  if (!res.ok || !res.headers.get("content-type")?.includes("application/json")) return;
  const pathname = new URL(path, ORIGIN).pathname;
  const spec = specs.find(
    (s) =>
      s.method === method.toLowerCase() && new RegExp(`^${s.path.replace(/:\w+/g, "[^/]+")}$`).test(pathname),
  );
  if (!spec?.response) return;
  const r = spec.response.safeParse(await res.clone().json());
  if (!r.success) {
    throw new Error(
      `${method} ${spec.path} answered outside its response schema:\n${z.prettifyError(r.error)}`,
    );
  }
}

/** Read an SSE body until `until` holds for the events read so far (or the stream ends). */
export async function readEvents(
  body: ReadableStream<Uint8Array>,
  until: (events: { id: string | null; event: string; data: unknown }[]) => boolean,
): Promise<{ id: string | null; event: string; data: unknown }[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const events: { id: string | null; event: string; data: unknown }[] = [];
  let buffer = "";
  try {
    while (!until(events)) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf("\n\n");
        if (block.startsWith(":")) continue;
        const field = (name: string) =>
          block
            .split("\n")
            .find((l) => l.startsWith(`${name}: `))
            ?.slice(name.length + 2) ?? null;
        events.push({
          id: field("id"),
          event: field("event") ?? "message",
          data: JSON.parse(field("data") ?? "null"),
        });
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return events;
}
