import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSampleProject } from "../../src/sample/seed.js";
import { makeTestBed, runNbookInProcess, type TestBed } from "../helpers.js";

let bed: TestBed;
const nbook = (...args: string[]) =>
  runNbookInProcess(["export", ...args, "--workspace", bed.ws.root], { cwd: bed.dir });

beforeAll(async () => {
  bed = makeTestBed("blank");
  await createSampleProject(bed.ws, "tide", { language: "en" });
}, 60_000);

afterAll(() => bed.cleanup());

describe("nbook export", () => {
  it("writes <project>.<format> in the current folder by default and says what it wrote", async () => {
    const r = await nbook("--project", "tide", "--format", "epub");
    expect(r.status).toBe(0);
    const file = join(bed.dir, "tide.epub");
    expect(r.stdout).toBe(
      `Exported 2 chapters of tide as epub to ${file} (${(readFileSync(file).length / 1024).toFixed(1)} KiB)\n`,
    );
    expect(r.stderr).toContain(
      'warning: Plot chapter "the-bell-road" (The Bell Road) has no file in manuscript/',
    );
    expect(readFileSync(file).subarray(30, 38).toString("ascii")).toBe("mimetype");
  });

  it("writes --out with a chapter range, and answers --json", async () => {
    const out = join(bed.dir, "out", "one.md");
    const r = await nbook("--project", "tide", "--format", "md", "--chapters", "2", "--out", out, "--json");
    expect(r.status).toBe(0);
    const answer = JSON.parse(r.stdout);
    expect(answer).toMatchObject({ ok: true, file: out, format: "md", chapters: 1 });
    const md = readFileSync(out, "utf8");
    expect(md).toContain("# Chapter 2 — Low Water");
    expect(md).not.toContain("# Chapter 1");
  });

  it("refuses an unknown format, a bad range and a project with no chapters, writing nothing", async () => {
    const bad = await nbook("--project", "tide", "--format", "rtf");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe(
      'error [invalid_input]: --format must be one of epub, docx, md, html, pdf, not "rtf"\n',
    );
    const range = await nbook("--project", "tide", "--format", "md", "--chapters", "1..9");
    expect(range.stderr).toBe("error [invalid_input]: Chapters 1..9: the book has 2 chapters\n");
    const empty = await nbook("--project", "blank", "--format", "epub");
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain("error [not_found]: blank has no chapters to export");
    expect(existsSync(join(bed.dir, "blank.epub"))).toBe(false);
    expect(existsSync(join(bed.dir, "tide.rtf"))).toBe(false);
  });
});
