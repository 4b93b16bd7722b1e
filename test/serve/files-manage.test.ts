import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FileNode } from "../../src/serve/responses.js";
import { readEvents, type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
let root: string;
beforeEach(async () => {
  fx = await serveFixture();
  root = fx.bed.project.root;
  for (const [dir, text] of [
    ["01-the-mill", "# The Mill\n\nMira heard the bell.\n"],
    ["02-the-road", "---\nchapter: two\n---\n# The Road ##\n\n雾里有钟声。\n"],
  ] as const) {
    mkdirSync(join(root, "manuscript", dir), { recursive: true });
    writeFileSync(join(root, "manuscript", dir, "index.md"), text);
  }
  writeFileSync(join(root, "manuscript", "01-the-mill", "notes.txt"), "draft notes\n");
});
afterEach(async () => {
  await fx.close();
});

const post = async (what: "move" | "delete", body: unknown) => {
  const res = await fx.api("POST", `/api/projects/novel/files/${what}`, body);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const manuscript = async () => {
  const { tree } = (await (await fx.api("GET", "/api/projects/novel/files/tree")).json()) as {
    tree: FileNode;
  };
  return tree.children!.find((c) => c.name === "manuscript")!;
};
const file = (...p: string[]) => join(root, ...p);
const revert = async (id: string) =>
  (await fx.api("POST", "/api/projects/novel/history/revert", { ids: [id] })).status;

describe("files for a book", () => {
  it("lists each chapter with its title and the words of its prose (title and front matter left out)", async () => {
    const m = await manuscript();
    const mill = m
      .children!.find((c) => c.name === "01-the-mill")!
      .children!.find((c) => c.name === "index.md")!;
    const road = m.children!.find((c) => c.name === "02-the-road")!.children![0]!;
    expect(mill).toMatchObject({ title: "The Mill", words: 4 });
    expect(road).toMatchObject({ title: "The Road", words: 5 });
  });

  it("moves a folder as one change, announced with every file's node, which one revert takes back", async () => {
    const stream = await fx.api("GET", "/api/events");
    const r = await post("move", { from: "manuscript/01-the-mill", to: "manuscript/03-the-mill" });
    expect(r.status).toBe(200);
    expect(r.body.paths).toEqual(
      expect.arrayContaining(["manuscript/01-the-mill/index.md", "manuscript/03-the-mill/notes.txt"]),
    );
    expect(existsSync(file("manuscript", "01-the-mill"))).toBe(false);
    expect(readFileSync(file("manuscript", "03-the-mill", "index.md"), "utf8")).toContain("# The Mill");
    const [event] = await readEvents(stream.body as ReadableStream<Uint8Array>, (e) => e.length >= 1);
    const nodes = (event!.data as { nodes: { path: string; node: FileNode | null }[] }).nodes;
    expect(nodes.find((n) => n.path === "manuscript/01-the-mill/index.md")?.node).toBeNull();
    expect(nodes.find((n) => n.path === "manuscript/03-the-mill/index.md")?.node).toMatchObject({
      title: "The Mill",
    });
    expect(await revert(r.body.change as string)).toBe(200);
    expect(readFileSync(file("manuscript", "01-the-mill", "notes.txt"), "utf8")).toBe("draft notes\n");
    expect(existsSync(file("manuscript", "03-the-mill", "index.md"))).toBe(false);
  });

  it("renames a file in its folder and deletes a folder, each undone by a revert", async () => {
    const moved = await post("move", {
      from: "manuscript/01-the-mill/notes.txt",
      to: "manuscript/01-the-mill/old.txt",
    });
    expect(moved.status).toBe(200);
    expect(readFileSync(file("manuscript", "01-the-mill", "old.txt"), "utf8")).toBe("draft notes\n");
    const gone = await post("delete", { path: "manuscript/02-the-road" });
    expect(gone.status).toBe(200);
    expect(gone.body.summary).toMatch(/Deleted manuscript\/02-the-road\/ \(1 file\)/);
    expect(existsSync(file("manuscript", "02-the-road"))).toBe(false);
    expect((await manuscript()).children!.map((c) => c.name)).not.toContain("02-the-road");
    expect(await revert(gone.body.change as string)).toBe(200);
    expect(readFileSync(file("manuscript", "02-the-road", "index.md"), "utf8")).toContain("雾里有钟声");
    expect(await revert(moved.body.change as string)).toBe(200);
    expect(existsSync(file("manuscript", "01-the-mill", "notes.txt"))).toBe(true);
  });

  it("refuses with stable codes and changes nothing: a taken path, into itself, a link, outside, missing", async () => {
    const outside = join(fx.bed.dir, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "secret.md"), "secret\n");
    symlinkSync(outside, file("lorebook", "out"));
    const cases: [string, unknown, number, string][] = [
      ["move", { from: "manuscript/01-the-mill", to: "manuscript/02-the-road" }, 409, "conflict"],
      ["move", { from: "manuscript/01-the-mill", to: "manuscript/01-the-mill/deeper" }, 400, "invalid_input"],
      ["move", { from: "lorebook/out", to: "lorebook/in" }, 409, ""],
      ["delete", { path: "../outside/secret.md" }, 403, "path_escape"],
      ["delete", { path: ".nbook/config.yaml" }, 403, "not_allowed"],
      ["delete", { path: "manuscript/nope.md" }, 404, "not_found"],
      ["move", { from: "manuscript/01-the-mill", to: "" }, 400, "invalid_input"],
    ];
    for (const [what, body, status, code] of cases) {
      const r = await post(what as "move", body);
      const error = r.body.error as { code: string };
      if (code) expect([r.status, error.code], JSON.stringify(body)).toEqual([status, code]);
      else expect(r.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(JSON.stringify(r.body)).not.toContain(fx.bed.dir);
    }
    expect(readFileSync(join(outside, "secret.md"), "utf8")).toBe("secret\n");
    expect(existsSync(file("manuscript", "01-the-mill", "index.md"))).toBe(true);
  });
});
