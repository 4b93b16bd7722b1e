import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServeFixture, serveFixture } from "../serve/fixture.js";

let fx: ServeFixture;
beforeAll(async () => {
  fx = await serveFixture({ sample: true });
}, 60_000);
afterAll(() => fx.close());

type ApiError = { error: { code: string; message: string; fields?: { pointer: string }[] } };

describe("GET /api/projects/:project/export", () => {
  it("downloads the EPUB as an attachment named after the project", async () => {
    const res = await fx.api("GET", "/api/projects/novel/export?format=epub");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/epub+zip");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="novel.epub"');
    expect(res.headers.get("x-export-chapters")).toBe("2");
    // The sample's plot plans a third chapter that has no file yet.
    expect(res.headers.get("x-export-warnings")).toBe("1");
    const zip = await JSZip.loadAsync(await res.arrayBuffer());
    expect(await zip.file("mimetype")!.async("string")).toBe("application/epub+zip");
    expect(await zip.file("OEBPS/nav.xhtml")!.async("string")).toContain("Chapter 2 — Low Water");
  });

  it("compiles a chapter range as Markdown", async () => {
    const res = await fx.api("GET", "/api/projects/novel/export?format=md&chapters=1");
    expect(res.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const md = await res.text();
    expect(md).toContain("# Chapter 1 — The Drowned Bell");
    expect(md).not.toContain("# Chapter 2");
  });

  it("answers bad input with stable codes and pointers into the query", async () => {
    const format = await fx.api("GET", "/api/projects/novel/export?format=rtf");
    expect(format.status).toBe(400);
    expect(((await format.json()) as ApiError).error.fields?.[0]?.pointer).toBe("/query/format");
    const range = await fx.api("GET", "/api/projects/novel/export?format=md&chapters=1..7");
    expect(range.status).toBe(400);
    const body = (await range.json()) as ApiError;
    expect(body.error).toMatchObject({
      code: "invalid_input",
      message: "Chapters 1..7: the book has 2 chapters",
    });
    expect(body.error.fields?.[0]?.pointer).toBe("/query/chapters");
  });

  it("says a project with no chapters has nothing to export", async () => {
    fx.bed.ws.createProject("blank");
    const res = await fx.api("GET", "/api/projects/blank/export?format=epub");
    expect(res.status).toBe(404);
    expect(((await res.json()) as ApiError).error.message).toContain("blank has no chapters to export");
  });

  // Last: it adds a file outside the plot to the sample, which the tests above count without.
  it("carries the compiler's warnings in its headers: the count, and the list as URI-encoded JSON", async () => {
    const extra = join(fx.bed.project.root, "manuscript", "99-extra");
    mkdirSync(extra, { recursive: true });
    writeFileSync(join(extra, "index.md"), "# Extra\n\nNot in the plot.\n");
    const res = await fx.api("GET", "/api/projects/novel/export?format=md");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-export-warnings")).toBe("2");
    const list = JSON.parse(decodeURIComponent(res.headers.get("x-export-warning-list")!));
    expect(list).toEqual([
      'Plot chapter "the-bell-road" (The Bell Road) has no file in manuscript/; it is left out',
      "manuscript/99-extra/index.md is not a chapter of the plot; it is placed after the plot's chapters",
    ]);
  });
});
