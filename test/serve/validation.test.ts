import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RouteSpec } from "../../src/serve/api.js";
import { type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
beforeAll(async () => {
  fx = await serveFixture();
});
afterAll(async () => {
  await fx.close();
});

/** Valid-looking values for every path parameter (whether the thing exists does not matter here). */
const GOOD_PARAM: Record<string, string> = {
  project: "novel",
  id: "1",
  approvalId: "1",
  chapterId: "1",
  sceneId: "1",
  subject: "mira",
  key: "writer",
  name: "keep-canon",
  jobId: "job_00000000",
  runId: "run_000000000000",
  importId: "0123456789abcdef01234567",
};

function pathWith(spec: RouteSpec, params: Record<string, string>): string {
  return spec.path.replace(/:(\w+)/g, (_, name: string) =>
    encodeURIComponent(params[name] ?? GOOD_PARAM[name]),
  );
}

type ErrorBody = { error: { code: string; message: string; fields: { pointer: string; message: string }[] } };

async function expectInvalid(res: Response, pointerPrefix: string, what: string): Promise<ErrorBody> {
  expect(res.status, what).toBe(400);
  const body = (await res.json()) as ErrorBody;
  expect(body.error.code, what).toBe("invalid_input");
  expect(body.error.fields.length, what).toBeGreaterThan(0);
  for (const f of body.error.fields)
    expect(f.pointer.startsWith(pointerPrefix), `${what}: ${f.pointer}`).toBe(true);
  return body;
}

describe("every route validates its inputs with its zod schemas", () => {
  it("has routes with inputs to test", () => {
    expect(fx.routes.specs.filter((s) => s.params || s.query || s.body).length).toBeGreaterThan(30);
  });

  it("a malformed path parameter is invalid_input pointing at /params/<name>", async () => {
    let tested = 0;
    for (const spec of fx.routes.specs) {
      if (!spec.params) continue;
      for (const name of spec.path.match(/:(\w+)/g)?.map((m) => m.slice(1)) ?? []) {
        const res = await fx.api(
          spec.method.toUpperCase(),
          pathWith(spec, { [name]: `!bad ${"x".repeat(300)}` }),
          spec.body ? {} : undefined,
        );
        const body = await expectInvalid(res, `/params/${name}`, `${spec.method} ${spec.path} :${name}`);
        expect(body.error.message).toContain("Invalid request params");
        tested++;
      }
    }
    expect(tested).toBeGreaterThan(30);
  });

  it("an unknown query field is refused (strict schemas), pointing at /query/<field>", async () => {
    let tested = 0;
    for (const spec of fx.routes.specs) {
      if (!spec.query) continue;
      const res = await fx.api(spec.method.toUpperCase(), `${pathWith(spec, {})}?bogusField=1`);
      expect(res.status).toBe(400);
      const body = (await res.json()) as ErrorBody;
      expect(body.error.code).toBe("invalid_input");
      expect(body.error.fields, `${spec.method} ${spec.path}`).toContainEqual({
        pointer: "/query/bogusField",
        message: "unknown field",
      });
      tested++;
    }
    expect(tested).toBeGreaterThan(10);
  });

  it("an unknown body field, a body that is not JSON, and a wrongly typed field are refused, pointing into /body", async () => {
    let tested = 0;
    for (const spec of fx.routes.specs) {
      if (!spec.body) continue;
      const what = `${spec.method} ${spec.path}`;
      await expectInvalid(
        await fx.api(spec.method.toUpperCase(), pathWith(spec, {}), { bogusField: 1 }),
        "/body",
        what,
      );
      const notJson = await expectInvalid(
        await fx.api(spec.method.toUpperCase(), pathWith(spec, {}), "{not json"),
        "/body",
        what,
      );
      expect(notJson.error.fields[0]).toEqual({ pointer: "/body", message: "not valid JSON" });
      await expectInvalid(
        await fx.api(spec.method.toUpperCase(), pathWith(spec, {}), "[1,2]"),
        "/body",
        what,
      );
      tested++;
    }
    expect(tested).toBeGreaterThanOrEqual(10);
  });

  it("typed query values: numbers and booleans are parsed, anything else is judged by the schema", async () => {
    const limit = await fx.api("GET", "/api/projects/novel/sessions?limit=abc");
    const body = await expectInvalid(limit, "/query/limit", "limit=abc");
    expect(body.error.fields[0].message).toMatch(/number/);
    expect((await fx.api("GET", "/api/projects/novel/sessions?limit=5")).status).toBe(200);
    await expectInvalid(
      await fx.api("GET", "/api/projects/novel/plot/tree?detail=yes"),
      "/query/detail",
      "detail=yes",
    );
    await expectInvalid(
      await fx.api("GET", "/api/projects/novel/sessions?status=sleeping"),
      "/query/status",
      "status",
    );
    await expectInvalid(await fx.api("GET", "/api/projects/novel/files/read"), "/query/path", "no path");
  });

  it("specific body rules: a blank message, an unknown mode, a bad model reference, a malformed version", async () => {
    await expectInvalid(
      await fx.api("POST", "/api/sessions/1/prompt", { message: "   " }),
      "/body/message",
      "blank",
    );
    await expectInvalid(await fx.api("PUT", "/api/sessions/1/mode", { mode: "yolo" }), "/body/mode", "mode");
    await expectInvalid(
      await fx.api("POST", "/api/projects/novel/sessions", { model: "no-slash" }),
      "/body/model",
      "model",
    );
    await expectInvalid(
      await fx.api("PUT", "/api/projects/novel/files/write", {
        path: "a.md",
        content: "x",
        baseVersion: "v1",
      }),
      "/body/baseVersion",
      "version",
    );
    await expectInvalid(
      await fx.api("PUT", "/api/projects/novel/files/write", { path: "a.md", content: "x" }),
      "/body/baseVersion",
      "missing version",
    );
    await expectInvalid(
      await fx.api("POST", "/api/projects", { name: "../up" }),
      "/body/name",
      "project name",
    );
    await expectInvalid(
      await fx.api("POST", "/api/projects", { name: "ok", language: "fr" }),
      "/body/language",
      "language",
    );
  });

  it("things that do not exist are not_found (404), not a server error", async () => {
    for (const path of [
      "/api/sessions/999",
      "/api/sessions/999/transcript",
      "/api/projects/ghost/files/tree",
      "/api/projects/ghost/sessions",
      "/api/projects/novel/world/subjects/nobody/state",
      "/api/profiles/nobody",
      "/api/skills/nothing",
    ]) {
      const res = await fx.api("GET", path);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as ErrorBody).error.code, path).toBe("not_found");
    }
  });
});

describe("docs/serve.md", () => {
  it("lists every route the app registers, and no other", async () => {
    const { readFileSync } = await import("node:fs");
    const doc = readFileSync(new URL("../../docs/serve.md", import.meta.url), "utf8");
    const documented = new Set(
      [...doc.matchAll(/^\| `(GET|POST|PUT|DELETE) (\/api\/[^`?]*)/gm)].map((m) => `${m[1]} ${m[2]}`),
    );
    const registered = new Set([
      ...fx.routes.specs.map((s) => `${s.method.toUpperCase()} ${s.path}`),
      "GET /api/openapi.json",
    ]);
    expect([...documented].sort()).toEqual([...registered].sort());
  });
});
