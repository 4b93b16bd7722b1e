// The OpenAPI document of `nbook serve`: a valid OpenAPI 3.1 document (swagger-parser) in which every
// route's success response has a schema, the same one the serve tests hold each answer to.
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterEach, describe, expect, it } from "vitest";
import { ORIGIN, type ServeFixture, serveFixture } from "./fixture.js";

type Operation = {
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
};
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

let fx: ServeFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

async function openApi(): Promise<Doc> {
  fx = await serveFixture();
  const res = await fx.app.request(`${ORIGIN}/api/openapi.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as Doc;
}

describe("the OpenAPI document", () => {
  it("validates as OpenAPI 3.1, every $ref resolving", async () => {
    const doc = await openApi();
    // validate() dereferences in place: it gets its own copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it("has a schema on every success response: a named JSON schema, the event stream, or a file download", async () => {
    const doc = await openApi();
    const seen: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const success = Object.entries(op.responses).filter(([status]) => /^2\d\d$/.test(status));
        expect(success, `${method} ${path}`).toHaveLength(1);
        const content = success[0][1].content ?? {};
        const json = content["application/json"]?.schema;
        const stream = content["text/event-stream"]?.schema;
        const files = Object.values(content).filter((c) => c.schema?.contentMediaType);
        expect(json ?? stream ?? files[0], `${method} ${path}: a schema`).toBeDefined();
        if (json) {
          const ref = String(json.$ref);
          expect(ref, `${method} ${path}`).toMatch(/^#\/components\/schemas\//);
          expect(doc.components.schemas[ref.slice("#/components/schemas/".length)]).toBeDefined();
        }
        seen.push(`${method} ${path}`);
      }
    }
    expect(seen.length).toBe(fx?.routes.specs.length);
  });

  it("describes an answer's fields: a session's transcript page names its session, entries, cursors, pending and tasks", async () => {
    const doc = (await SwaggerParser.dereference((await openApi()) as never)) as unknown as Doc;
    const schema = doc.paths["/api/sessions/{id}/transcript"].get.responses["200"].content?.[
      "application/json"
    ]?.schema as { properties: Record<string, unknown>; required: string[] };
    const fields = ["entries", "newer", "older", "pending", "running", "session", "tasks"];
    expect(Object.keys(schema.properties).sort()).toEqual(fields);
    expect(schema.required.sort()).toEqual(fields);
  });

  it("the sample project's read routes answer within their schemas (the fixture checks each answer)", async () => {
    fx = await serveFixture({ sample: true });
    const get = async <T>(path: string): Promise<T> => {
      const res = await (fx as ServeFixture).api("GET", path);
      expect(res.status, path).toBe(200);
      return (await res.json()) as T;
    };
    const p = "/api/projects/novel";
    const { subjects } = await get<{ subjects: { id: string }[] }>(`${p}/world/subjects`);
    const tree = await get<{ acts: { chapters: { id: number }[] }[] }>(`${p}/plot/tree?detail=true`);
    const { skills } = await get<{ skills: { name: string }[] }>("/api/skills");
    const chapter = tree.acts[0].chapters[0].id;
    for (const path of [
      `${p}/files/tree`,
      `${p}/world/schema`,
      `${p}/world/subjects/${subjects[0].id}/state`,
      `${p}/world/subjects/${subjects[0].id}/history`,
      `${p}/world/slices?patches=true`,
      `${p}/world/issues`,
      `${p}/plot/chapters/${chapter}`,
      `${p}/plot/chapters/${chapter}/brief`,
      `${p}/plot/promises`,
      `${p}/plot/decisions`,
      "/api/models",
      "/api/profiles",
      "/api/profiles/leader.default",
      `/api/skills/${skills[0].name}`,
      "/api/jobs",
      "/api/workflow-runs",
      "/api/approvals",
      `${p}/sessions`,
      `${p}/sessions/tree`,
    ]) {
      await get(path);
    }
  });
});
