import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestBed, runNbookInProcess, type TestBed } from "../helpers.js";
import { encryptedOfficeFile } from "./import-fixtures.js";

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed("existing");
});
afterEach(() => bed.cleanup());

const run = (...args: string[]) =>
  runNbookInProcess(["import", ...args, "--workspace", bed.ws.root], { cwd: bed.dir });

describe("nbook import", () => {
  it("--dry-run prints the plan with titles and word counts and writes nothing", async () => {
    const src = join(bed.dir, "salt.md");
    writeFileSync(src, "# Salt\n\n## Chapter 1\n\nThe bell rang.\n\n## Chapter 2\n\nIt rang again, twice.\n");
    const before = readdirSync(bed.ws.root).sort();
    const r = await run(src, "--dry-run");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /"Salt" \(en\) from salt\.md \(markdown, utf-8\): 2 chapter\(s\), \d+ words → new project salt/,
    );
    expect(r.stdout).toMatch(/1 {2}01-chapter-1 +5 {2}Chapter 1/);
    expect(r.stdout).toMatch(/2 {2}02-chapter-2 +6 {2}Chapter 2/);
    expect(r.stdout).toContain("Dry run: nothing was written.");
    expect(readdirSync(bed.ws.root).sort()).toEqual(before);
  });

  it("creates the project and prints it; --json gives the plan as an object", async () => {
    const src = join(bed.dir, "b.txt");
    writeFileSync(src, "Chapter 1\n\nOne.\n\nChapter 2\n\nTwo.\n");
    const r = await run(src, "--project", "salt", "--json", "--author", "Ann");
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      ok: true,
      written: true,
      plan: { project: "salt", author: "Ann", splitBy: "patterns" },
    });
    expect(existsSync(join(bed.ws.root, "salt", "manuscript", "02-chapter-2", "index.md"))).toBe(true);
  });

  it("reports a password-protected DOCX with its code and no stack trace", async () => {
    const src = join(bed.dir, "locked.docx");
    writeFileSync(src, encryptedOfficeFile());
    const r = await run(src);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error \[unsupported\]: locked\.docx is protected with a password/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses --split without pattern: with a usage error naming the form", async () => {
    const src = join(bed.dir, "b.txt");
    writeFileSync(src, "x\n");
    const r = await run(src, "--split", "^Chapter");
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/invalid_input.*\/split.*pattern:REGEX/s);
  });
});
