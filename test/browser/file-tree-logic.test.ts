// The files screen's tree logic, run under Node: change events put nodes in place, lazy folders are
// filled, and nothing outside the changed path is copied.
import { describe, expect, it } from "vitest";
import type { FileNode } from "../../web/src/api.js";
import {
  applyChange,
  graft,
  retitle,
  targetsOf,
  titleFromSlug,
  totalWords,
} from "../../web/src/file-tree.js";

const file = (path: string, words?: number): FileNode => ({
  name: path.split("/").at(-1)!,
  path,
  kind: "file",
  size: 1,
  ...(words === undefined ? {} : { words }),
});
const dir = (path: string, children?: FileNode[], lazy?: boolean): FileNode => ({
  name: path.split("/").at(-1)!,
  path,
  kind: "dir",
  ...(children ? { children } : {}),
  ...(lazy ? { lazy } : {}),
});

const tree = (): FileNode =>
  dir(".", [
    dir("lorebook", [file("lorebook/mira.md", 3)]),
    dir("manuscript", [
      dir("manuscript/01", [file("manuscript/01/index.md", 10)]),
      dir("manuscript/02", undefined, true),
    ]),
    file("project.yaml"),
  ]);

describe("applyChange", () => {
  it("replaces a changed file's node and shares the untouched folders", () => {
    const t = tree();
    const next = applyChange(t, { path: "manuscript/01/index.md", node: file("manuscript/01/index.md", 12) });
    expect(next.children?.[1]?.children?.[0]?.children).toEqual([file("manuscript/01/index.md", 12)]);
    expect(next.children?.[0]).toBe(t.children?.[0]);
    expect(t.children?.[1]?.children?.[0]?.children?.[0]?.words).toBe(10);
  });

  it("adds a new file in a new folder in order (folders first), and removes a file that is gone", () => {
    const added = applyChange(tree(), {
      path: "manuscript/00/index.md",
      node: file("manuscript/00/index.md", 1),
    });
    expect(added.children?.[1]?.children?.map((c) => c.path)).toEqual([
      "manuscript/00",
      "manuscript/01",
      "manuscript/02",
    ]);
    expect(added.children?.[1]?.children?.[0]?.children).toEqual([file("manuscript/00/index.md", 1)]);
    const removed = applyChange(tree(), { path: "lorebook/mira.md", node: null });
    expect(removed.children?.[0]?.children).toEqual([]);
    // The folder a removal empties goes too (as the server removes it), a top folder never.
    const emptied = applyChange(tree(), { path: "manuscript/01/index.md", node: null });
    expect(emptied.children?.[1]?.children?.map((c) => c.path)).toEqual(["manuscript/02"]);
    // A removal under a folder that is not there changes nothing.
    const t = tree();
    expect(applyChange(t, { path: "notes/x.md", node: null })).toEqual(t);
  });

  it("leaves a change inside a lazy folder for when it is opened", () => {
    const t = tree();
    const next = applyChange(t, { path: "manuscript/02/index.md", node: file("manuscript/02/index.md", 5) });
    expect(next.children?.[1]?.children?.[1]).toEqual(dir("manuscript/02", undefined, true));
  });
});

describe("the book's figures", () => {
  it("totals a folder's words all levels down, partial while a folder in it is lazy", () => {
    const t = tree();
    expect(totalWords(t.children![1]!)).toEqual({ words: 10, partial: true });
    expect(totalWords(t.children![0]!)).toEqual({ words: 3, partial: false });
    const next = applyChange(t, { path: "manuscript/01/index.md", node: file("manuscript/01/index.md", 12) });
    expect(totalWords(next.children![1]!).words).toBe(12);
  });

  it("titles a new chapter from its name and retitles a chapter, front matter kept", () => {
    expect(titleFromSlug("03-the-bell-road")).toBe("The Bell Road");
    expect(titleFromSlug("第三章-钟声")).toBe("第三章 钟声");
    expect(retitle("---\nchapter: two\n---\n# Old ##\n\nText\n", "New")).toBe(
      "---\nchapter: two\n---\n# New\n\nText\n",
    );
    expect(retitle("Text\n", "First")).toBe("# First\n\nText\n");
    expect(targetsOf("manuscript/03/index.md")).toEqual([
      "manuscript/03/index.md",
      "manuscript/03",
      "manuscript",
    ]);
  });
});

describe("graft", () => {
  it("fills a lazy folder from its own answer", () => {
    const next = graft(tree(), "manuscript/02", dir("manuscript/02", [file("manuscript/02/index.md", 8)]));
    expect(next.children?.[1]?.children?.[1]).toEqual({
      name: "02",
      path: "manuscript/02",
      kind: "dir",
      lazy: undefined,
      children: [file("manuscript/02/index.md", 8)],
    });
  });
});
