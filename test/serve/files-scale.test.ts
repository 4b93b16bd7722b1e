import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileTreeCache } from "../../src/serve/file-tree.js";
import type { FileNode, SearchResult } from "../../src/serve/responses.js";
import { readEvents, type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
let root: string;
beforeEach(async () => {
  fx = await serveFixture();
  root = fx.bed.project.root;
});
afterEach(async () => {
  await fx.close();
});

function chapters(n: number): void {
  for (let i = 1; i <= n; i++) {
    const dir = join(root, "manuscript", `ch-${String(i).padStart(4, "0")}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "index.md"), `# Chapter ${i}\n\nThe bell rang ${i} times.\n`);
  }
}

const tree = async (query = "") =>
  (await (await fx.api("GET", `/api/projects/novel/files/tree${query}`)).json()) as {
    tree: FileNode;
    truncated: boolean;
  };
const child = (n: FileNode, name: string) => n.children?.find((c) => c.name === name);

describe("the file tree at scale", () => {
  it("lists a project of 5,000 chapters completely, each chapter with its word count", async () => {
    chapters(5000);
    const { tree: t, truncated } = await tree();
    expect(truncated).toBe(false);
    const manuscript = child(t, "manuscript")!;
    const folders = manuscript.children!.filter((c) => c.kind === "dir");
    expect(folders).toHaveLength(5000);
    expect(folders.every((f) => f.children?.[0]?.words === 5 && !f.lazy)).toBe(true);
    expect(folders.at(-1)?.children?.[0]?.path).toBe("manuscript/ch-5000/index.md");
  });

  it("refuses ?path= for what is not a listed folder of the project", async () => {
    const outside = join(fx.bed.dir, "outside");
    mkdirSync(outside);
    symlinkSync(outside, join(root, "lorebook", "out"));
    for (const path of ["../", ".nbook", "lorebook/out", "manuscript/../..", "project.yaml", "nope"]) {
      const res = await fx.api("GET", `/api/projects/novel/files/tree?path=${encodeURIComponent(path)}`);
      expect(res.status, path).toBe(404);
      const body = (await res.json()) as { error: { code: string } };
      expect(body.error.code).toBe("not_found");
      expect(JSON.stringify(body)).not.toContain(fx.bed.dir);
    }
  });

  it("a change event carries the changed node with its new word count, and null for a removed file", async () => {
    chapters(3);
    await tree();
    const stream = await fx.api("GET", "/api/events");
    const r = await fx.bed.call("write", {
      path: "manuscript/ch-0002/index.md",
      content: "Four words here now.\n",
    });
    expect(r.ok).toBe(true);
    // Writes through the workbench route are announced by the hub with their nodes.
    await fx.api("PUT", "/api/projects/novel/files/write", {
      path: "manuscript/ch-0004/index.md",
      content: "# Four\n\n钟响了\n",
      baseVersion: null,
    });
    const events = await readEvents(stream.body as ReadableStream<Uint8Array>, (e) => e.length >= 1);
    expect(events[0]).toMatchObject({
      event: "files_changed",
      data: {
        paths: ["manuscript/ch-0004/index.md"],
        nodes: [
          {
            path: "manuscript/ch-0004/index.md",
            node: {
              name: "index.md",
              path: "manuscript/ch-0004/index.md",
              kind: "file",
              words: 3,
              title: "Four",
            },
          },
        ],
      },
    });
    // The cached count follows the file's identity: the tool's write is seen on the next listing.
    const ch2 = child(child((await tree()).tree, "manuscript")!, "ch-0002")!;
    expect(ch2.children?.[0]?.words).toBe(4);
    // A file a patch deleted is reported with no node, for the clients to drop.
    rmSync(join(root, "manuscript", "ch-0001", "index.md"));
    expect(fx.hub.projectFiles("novel").changed(["manuscript/ch-0001/index.md"])).toEqual([
      { path: "manuscript/ch-0001/index.md", node: null },
    ]);
  });
});

describe("the search route", () => {
  it("answers hits with chapter, line and snippet, and sees a write made through the workbench at once", async () => {
    chapters(3);
    const search = async (q: string, extra = "") =>
      (await (
        await fx.api("GET", `/api/projects/novel/search?q=${encodeURIComponent(q)}${extra}`)
      ).json()) as SearchResult;
    const r = await search('"rang 2 times"');
    expect(r.hits.map((h) => [h.chapter, h.line, h.snippet, h.highlights])).toEqual([
      ["ch-0002", 3, "The bell rang 2 times.", [[9, 21]]],
    ]);
    await fx.api("PUT", "/api/projects/novel/files/write", {
      path: "lorebook/bell.md",
      content: "The bell of 长安 was cast twice.\n",
      baseVersion: null,
    });
    expect((await search("长安")).hits.map((h) => h.path)).toEqual(["lorebook/bell.md"]);
    expect((await search("bell", "&in=lorebook")).hits.map((h) => h.area)).toEqual(["lorebook"]);
    const bad = await fx.api("GET", "/api/projects/novel/search?q=bell&in=attic");
    expect(bad.status).toBe(400);
    expect(
      ((await bad.json()) as { error: { fields: { pointer: string }[] } }).error.fields[0]?.pointer,
    ).toBe("/query/in/0");
  });
});

describe("the tree's node budget", () => {
  it("fills folders level by level; those past the budget come back lazy and load by path, nothing lost", () => {
    chapters(30);
    // A budget that holds the top levels and the chapter folders, but not every chapter's file.
    const cache = new FileTreeCache(fx.bed.project, 60);
    const { tree: t, truncated } = cache.tree();
    expect(truncated).toBe(false);
    const folders = child(t, "manuscript")!.children!.filter((c) => c.kind === "dir");
    expect(folders).toHaveLength(30);
    const lazy = folders.filter((c) => c.lazy);
    expect(lazy.length).toBeGreaterThan(0);
    expect(lazy.length).toBeLessThan(30);
    expect(lazy.every((c) => c.children === undefined)).toBe(true);
    for (const f of lazy) {
      const one = cache.tree(f.path).tree;
      expect(one.path).toBe(f.path);
      expect(one.children?.map((c) => [c.name, c.words])).toEqual([["index.md", 5]]);
    }
  });
});

describe("the tree kept by watching its folders", () => {
  it("answers a warm tree from what it kept, and sees edits made outside nbook as the watch reports them", async () => {
    chapters(3);
    const cache = new FileTreeCache(fx.bed.project);
    const chapter = (t: FileNode, name: string) => child(child(t, "manuscript")!, name);
    const first = cache.tree().tree;
    // Nothing changed: the same file nodes are given again, none made anew.
    expect(chapter(cache.tree().tree, "ch-0001")!.children![0]).toBe(chapter(first, "ch-0001")!.children![0]);
    const until = <T>(read: () => T) => expect.poll(read, { timeout: 10_000, interval: 20 });
    writeFileSync(join(root, "manuscript", "ch-0002", "index.md"), "# Two\n\nOne two three.\n");
    await until(() => chapter(cache.tree().tree, "ch-0002")!.children![0]).toMatchObject({
      title: "Two",
      words: 3,
    });
    mkdirSync(join(root, "manuscript", "ch-0009"));
    writeFileSync(join(root, "manuscript", "ch-0009", "index.md"), "# Nine\n");
    await until(() => chapter(cache.tree().tree, "ch-0009")?.children?.[0]?.title).toBe("Nine");
    rmSync(join(root, "manuscript", "ch-0001"), { recursive: true });
    await until(() => chapter(cache.tree().tree, "ch-0001")).toBeUndefined();
    // A folder removed and made again under the same name is listed afresh, not from what was kept.
    rmSync(join(root, "manuscript", "ch-0009"), { recursive: true });
    mkdirSync(join(root, "manuscript", "ch-0009"));
    writeFileSync(join(root, "manuscript", "ch-0009", "other.md"), "# Other\n");
    await until(() => chapter(cache.tree().tree, "ch-0009")?.children?.map((c) => c.name)).toEqual([
      "other.md",
    ]);
    cache.close();
  });
});
