import { linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProjectSearch } from "../../src/search/project-search.js";
import { makeTestBed, runNbookInProcess, type TestBed } from "../helpers.js";

let bed: TestBed;
let root: string;
let index: ProjectSearch;

function write(rel: string, text: string): void {
  mkdirSync(join(root, rel, ".."), { recursive: true });
  writeFileSync(join(root, rel), text);
}

beforeEach(() => {
  bed = makeTestBed();
  root = bed.project.root;
  write(
    "manuscript/01-bell-road/index.md",
    "# The Bell Road\n\nMira walked the bell road at dawn.\n\nThe bellows of the smithy breathed.\n",
  );
  write("manuscript/02-长安/index.md", "# 长安\n\n林岚走进长安城的雾里。\n\n钟声从城墙上传来。\n");
  write("lorebook/mira/index.md", "# Mira\n\nMira keeps the bell rope of the road chapel.\n");
  write(".agent/plan/next.md", "Plan: Mira reaches the bell tower.\n");
  index = new ProjectSearch(bed.project);
  index.sync();
});
afterEach(() => {
  index.close();
  bed.cleanup();
});

describe("search: the project's full-text index", () => {
  it("finds an English phrase with its chapter, line, title and highlighted snippet", () => {
    const r = index.search({ query: '"bell road"' });
    expect(r.hits).toEqual([
      {
        path: "manuscript/01-bell-road/index.md",
        area: "manuscript",
        chapter: "01-bell-road",
        title: "The Bell Road",
        line: 1,
        snippet: "# The Bell Road",
        highlights: [[6, 15]],
      },
      {
        path: "manuscript/01-bell-road/index.md",
        area: "manuscript",
        chapter: "01-bell-road",
        title: "The Bell Road",
        line: 3,
        snippet: "Mira walked the bell road at dawn.",
        highlights: [[16, 25]],
      },
    ]);
    expect(r.more).toBe(false);
  });

  it("finds Chinese phrases of any length, inside runs of text", () => {
    const three = index.search({ query: "长安城" });
    expect(
      three.hits.map((h) => [h.path, h.line, h.snippet.slice(h.highlights[0]![0], h.highlights[0]![1])]),
    ).toEqual([["manuscript/02-长安/index.md", 3, "长安城"]]);
    // Two characters are below the trigram index: found all the same.
    const two = index.search({ query: "钟声" });
    expect(two.hits.map((h) => [h.chapter, h.line])).toEqual([["02-长安", 5]]);
    expect(index.search({ query: "长安" }).hits.map((h) => h.line)).toEqual([1, 3]);
  });

  it("matches whole words, prefix* as word starts, and needs every term", () => {
    const bell = index.search({ query: "bell" }).hits.map((h) => `${h.path}:${h.line}`);
    expect(bell).toContain("manuscript/01-bell-road/index.md:3");
    expect(bell).not.toContain("manuscript/01-bell-road/index.md:5"); // "bellows" is not "bell"
    const prefix = index.search({ query: "bell*" }).hits.map((h) => `${h.path}:${h.line}`);
    expect(prefix).toContain("manuscript/01-bell-road/index.md:5");
    expect(index.search({ query: "mira chapel" }).hits.map((h) => h.path)).toEqual([
      "lorebook/mira/index.md",
    ]);
    expect(index.search({ query: "mira dragon" }).hits).toEqual([]);
  });

  it("restricts to the areas asked for, and says when the limit cut the hits", () => {
    expect(index.search({ query: "Mira", in: ["lorebook"] }).hits.map((h) => h.area)).toEqual([
      "lorebook",
      "lorebook",
    ]);
    expect(index.search({ query: "Mira", in: ["plan"] }).hits.map((h) => h.path)).toEqual([
      ".agent/plan/next.md",
    ]);
    const cut = index.search({ query: "Mira", limit: 2 });
    expect(cut.hits).toHaveLength(2);
    expect(cut.more).toBe(true);
  });

  it("refuses an empty query and an unclosed quote with invalid_input", () => {
    expect(() => index.search({ query: '  "" ' })).toThrow(
      expect.objectContaining({ code: "invalid_input" }),
    );
    expect(() => index.search({ query: '"bell road' })).toThrow(/unclosed quote/);
  });

  it("is kept by file identity: a rewrite, a new file and a removal are seen; an unchanged file is not re-read", () => {
    expect(index.sync()).toEqual({ indexed: 0, removed: 0 });
    write("manuscript/01-bell-road/index.md", "# The Bell Road\n\nA lantern swung over the ford.\n");
    write("manuscript/03-ford/index.md", "# Ford\n\nThe lantern went out.\n");
    rmSync(join(root, "lorebook/mira"), { recursive: true });
    expect(index.sync()).toEqual({ indexed: 2, removed: 1 });
    expect(index.search({ query: "lantern" }).hits.map((h) => `${h.chapter}:${h.line}`)).toEqual([
      "01-bell-road:3",
      "03-ford:3",
    ]);
    expect(index.search({ query: '"bell road"' }).hits.map((h) => h.line)).toEqual([1]);
    expect(index.search({ query: "chapel" }).hits).toEqual([]);
  });

  it("updates one file named as just written, and another connection sees it", () => {
    write("manuscript/02-长安/index.md", "# 长安\n\n雪落在长安的屋顶上。\n");
    expect(index.update(["manuscript/02-长安/index.md", "project.yaml"])).toEqual({ indexed: 1, removed: 0 });
    const other = new ProjectSearch(bed.project);
    try {
      expect(other.search({ query: "屋顶" }).hits.map((h) => h.line)).toEqual([3]);
      expect(other.search({ query: "钟声" }).hits).toEqual([]);
    } finally {
      other.close();
    }
  });

  it("never indexes or returns text from outside the project: links and second names are skipped", () => {
    const outside = join(bed.dir, "outside");
    mkdirSync(join(outside, "deep"), { recursive: true });
    writeFileSync(join(outside, "secret.md"), "SECRETWORD in a file outside\n");
    writeFileSync(join(outside, "deep", "x.md"), "SECRETWORD deeper\n");
    symlinkSync(join(outside, "deep"), join(root, "lorebook", "out"));
    symlinkSync(join(outside, "secret.md"), join(root, "manuscript", "linked.md"));
    linkSync(join(outside, "secret.md"), join(root, "lorebook", "innocent.md"));
    rmSync(join(root, ".agent", "plan"), { recursive: true });
    symlinkSync(outside, join(root, ".agent", "plan"));
    index.sync();
    expect(index.search({ query: "SECRETWORD" }).hits).toEqual([]);
    index.update(["lorebook/innocent.md", "manuscript/linked.md", "lorebook/out/x.md"]);
    expect(index.search({ query: "SECRETWORD" }).hits).toEqual([]);
  });
});

describe("search: the doors", () => {
  it("the agent tool `search` (a read tool) returns lines with snippets and the hits in details", async () => {
    const r = await bed.call("search", { query: '"bell road"', in: ["manuscript"] }, { profile: "writer" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.text).toContain("manuscript/01-bell-road/index.md:3 (chapter 01-bell-road: The Bell Road)");
    expect(r.text).toContain("Mira walked the **bell road** at dawn.");
    expect((r.details as { count: number }).count).toBe(2);
    const bad = await bed.call("search", { query: "x", in: ["attic"] });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.fields?.[0]?.pointer).toBe("/in/0");
  });

  it("nbook search prints hits, --in narrows, --json prints one object", async () => {
    const cwd = root;
    const text = await runNbookInProcess(["search", "Mira", "--in", "lorebook"], { cwd });
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("lorebook/mira/index.md:3");
    expect(text.stdout).not.toContain("manuscript/");
    const json = await runNbookInProcess(["search", "钟声", "--json"], { cwd });
    const parsed = JSON.parse(json.stdout) as { ok: boolean; hits: { chapter: string; line: number }[] };
    expect(parsed.ok).toBe(true);
    expect(parsed.hits.map((h) => [h.chapter, h.line])).toEqual([["02-长安", 5]]);
    const bad = await runNbookInProcess(["search", "x", "--in", "attic", "--json"], { cwd });
    expect(bad.status).toBe(2);
    expect(JSON.parse(bad.stdout).error.code).toBe("invalid_input");
  });
});
