import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type ServeFixture, serveFixture } from "../serve/fixture.js";
import { buildDocx } from "./import-fixtures.js";

let fx: ServeFixture;
beforeEach(async () => {
  fx = await serveFixture();
});
afterEach(() => fx.close());

type ApiError = {
  error: { code: string; message: string; fields: { pointer: string }[]; details?: unknown };
};
const uploads = () => {
  const dir = join(fx.bed.ws.cacheDir, "imports");
  return existsSync(dir) ? readdirSync(dir) : [];
};

async function docx(chapters: number): Promise<string> {
  const buf = await buildDocx({
    title: "Salt and Bells",
    author: "Ann Marsh",
    front: [],
    chapters: Array.from({ length: chapters }, (_, i) => ({
      title: `Chapter ${i + 1}`,
      paragraphs: [[{ text: "The bell " }, { text: "rang", italics: true }, { text: "." }]],
    })),
    footnotes: {},
  });
  return buf.toString("base64");
}

describe("import routes", () => {
  it("uploads a DOCX, shows its plan, re-plans it, and creates the project with progress events", async () => {
    const up = await fx.api("POST", "/api/imports", { filename: "salt.docx", data: await docx(3) });
    expect(up.status).toBe(201);
    const { importId, plan } = (await up.json()) as {
      importId: string;
      plan: { project: string; chapters: unknown[]; author: string };
    };
    expect(plan).toMatchObject({ project: "salt-and-bells", author: "Ann Marsh" });
    expect(plan.chapters).toHaveLength(3);
    expect(fx.bed.ws.hasProject("salt-and-bells")).toBe(false);

    const again = await fx.api("POST", `/api/imports/${importId}/plan`, { project: "salt", title: "Salt" });
    expect(((await again.json()) as { plan: { project: string; title: string } }).plan).toMatchObject({
      project: "salt",
      title: "Salt",
    });
    expect(fx.bed.ws.hasProject("salt")).toBe(false);

    const publish = vi.spyOn(fx.hub.events, "publish");
    const made = await fx.api("POST", `/api/imports/${importId}/create`, { project: "salt" });
    expect(made.status).toBe(201);
    expect(((await made.json()) as { project: { name: string } }).project.name).toBe("salt");
    const progress = publish.mock.calls.filter(([type]) => type === "import_progress").map(([, d]) => d);
    expect(progress.at(-1)).toEqual({ importId, stage: "done", done: 3, total: 3 });
    expect(progress.filter((p) => (p as { stage: string }).stage === "write")).toHaveLength(3);
    expect(publish.mock.calls.some(([type]) => type === "project_created")).toBe(true);
    publish.mockRestore();
    expect(existsSync(join(fx.bed.ws.root, "salt", "manuscript", "03-chapter-3", "index.md"))).toBe(true);
    const list = (await (await fx.api("GET", "/api/projects")).json()) as { projects: { name: string }[] };
    expect(list.projects.map((p) => p.name)).toContain("salt");
    // The upload is gone once imported.
    expect(uploads()).toEqual([]);
    const gone = await fx.api("POST", `/api/imports/${importId}/create`, {});
    expect(gone.status).toBe(404);
  });

  it("appends an upload into an existing project", async () => {
    const up = (await (
      await fx.api("POST", "/api/imports", { filename: "salt.docx", data: await docx(2) })
    ).json()) as { importId: string };
    const made = await fx.api("POST", `/api/imports/${up.importId}/create`, { into: "novel" });
    expect(made.status).toBe(201);
    const body = (await made.json()) as { plan: { into: boolean; chapters: { folder: string }[] } };
    expect(body.plan.into).toBe(true);
    expect(body.plan.chapters.map((c) => c.folder)).toEqual(["01-chapter-1", "02-chapter-2"]);
  });

  it("answers a damaged file with its code and reason, and keeps no upload", async () => {
    const res = await fx.api("POST", "/api/imports", {
      filename: "x.docx",
      data: Buffer.from("PK\u0003\u0004garbage").toString("base64"),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ApiError;
    expect(body.error.code).toBe("invalid_input");
    expect(body.error.details).toEqual({ reason: "corrupt_file" });
    expect(body.error.message).not.toContain(fx.bed.ws.root);
    expect(uploads()).toEqual([]);
  });

  it("points at the body field of a bad choice, and discards an upload on request", async () => {
    const up = (await (
      await fx.api("POST", "/api/imports", {
        filename: "a.md",
        data: Buffer.from("# One\n\nA.\n").toString("base64"),
      })
    ).json()) as {
      importId: string;
    };
    const bad = await fx.api("POST", `/api/imports/${up.importId}/plan`, { split: "^One" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as ApiError).error.fields[0].pointer).toBe("/body/split");
    const both = await fx.api("POST", `/api/imports/${up.importId}/create`, { project: "a", into: "novel" });
    expect(((await both.json()) as ApiError).error.fields[0].pointer).toBe("/body/into");
    expect((await fx.api("DELETE", `/api/imports/${up.importId}`)).status).toBe(200);
    expect(uploads()).toEqual([]);
    expect((await fx.api("POST", `/api/imports/${up.importId}/plan`, {})).status).toBe(404);
  });
});
