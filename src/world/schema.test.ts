import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { errorOf } from "../../test/errors.js";
import { tempWorld } from "../../test/world/fixture.js";
import { defaultSchemaYaml } from "../workspace/schema-seed.js";
import { Workspace } from "../workspace/workspace.js";
import { defaultsFor, loadSchemaFile, parseSchema, resolvePath } from "./schema.js";
import { openWorld } from "./world.js";

const configError = (text: string) => errorOf(() => parseSchema(text));

describe("schema.yaml", () => {
  it("maps every attribute type, shorthands included (30)", () => {
    const s = parseSchema(`types:
  a:
    attrs:
      s: string
      r: ref:a
      any: ref
      tags: { type: set, of: string }
      log: { type: list, of: text }
      mem: { type: record, of: text }
      o: { type: object, fields: { x: { type: int, default: 3 } } }
      e: { type: enum, values: [one, two], default: one }
`);
    const attrs = s.types.a.attrs;
    expect(attrs.r).toEqual({ type: "ref", to: "a" });
    expect(attrs.any).toEqual({ type: "ref" });
    expect(attrs.tags.of?.type).toBe("string");
    expect(resolvePath(s, "a", ["mem", "师门"])).toEqual({ kind: "declared", spec: { type: "text" } });
    expect(resolvePath(s, "a", ["log", "2"])).toMatchObject({ kind: "declared" });
    expect(resolvePath(s, "a", ["o", "y"]).kind).toBe("invalid");
    expect(resolvePath(s, "a", ["s", "deeper"]).kind).toBe("invalid");
    expect(resolvePath(s, "a", ["undeclared", "x"]).kind).toBe("free");
    expect(Object.fromEntries(defaultsFor(s, "a"))).toEqual({ tags: [], log: [], o: { x: 3 }, e: "one" });
  });

  it.each([
    ["types:\n  a:\n    attrs:\n      x: { type: nope }\n", 4],
    ["types:\n  a:\n    attrs:\n      x: ref:ghost\n", 4],
    ["types:\n  a:\n    attrs:\n      x: { type: list }\n", 4],
    ["types:\n  a:\n    attrs:\n      x: { type: int, default: 1.5 }\n", 4],
    ["types:\n  a:\n    attrs:\n      x: { type: enum, values: [a, a] }\n", 4],
    ["types:\n  a:\n    attrs:\n      x: [unclosed\n", 5],
    ["types:\n  a:\n    attrs:\n      x: string\n    extra: 1\n", 5],
  ])("a malformed file names the line: %j", (text, line) => {
    const e = configError(text);
    expect(e.code).toBe("config_error");
    expect(e.message).toContain(`line ${line}`);
  });

  it("a missing file is permissive: any type, free scalar attributes", () => {
    expect(loadSchemaFile("/nonexistent/schema.yaml").source).toBe("none");
    const t = tempWorld(null);
    try {
      t.world.slice.write({
        time: 1,
        patches: [{ subjectId: "x", type: "anything", path: "/a/b", op: "replace", value: "v" }],
      });
      expect(t.world.subject.get("x")).toEqual({ a: { b: "v" } });
      expect(t.world.schema.describe()).toEqual({ source: "none", types: [] });
    } finally {
      t.cleanup();
    }
  });

  it("edits are picked up by the next call and re-derive issues (31)", () => {
    const t = tempWorld("types:\n  c:\n    attrs:\n      hp: int\n");
    try {
      t.world.slice.write({
        time: 1,
        patches: [{ subjectId: "x", type: "c", path: "/hp", op: "replace", value: 1 }],
      });
      t.setSchema("types:\n  c:\n    attrs:\n      hp: int\n      mood: { type: enum, values: [calm] }\n");
      expect(t.world.schema.describe().types[0].attrs.map((a) => a.name)).toEqual(["hp", "mood"]);
      t.setSchema("types:\n  c:\n    attrs:\n      hp: [broken\n");
      expect(() => t.world.subject.get("x")).toThrow(/line 5/);
    } finally {
      t.cleanup();
    }
  });

  it("a change first seen inside a transaction that rolls back is still re-derived", () => {
    const t = tempWorld("types:\n  c:\n    attrs:\n      hp: int\n");
    try {
      const w = t.world;
      w.slice.write({
        time: 1,
        patches: [
          { subjectId: "x", type: "c", path: "/boss", op: "replace", value: "subject://nobody" },
          { subjectId: "x", path: "/bio", op: "replace", value: "a quiet archivist" },
        ],
      });
      expect(w.search.text("archivist")).toEqual([]);
      const seen = w.transaction(
        () => {
          t.setSchema("types:\n  c:\n    attrs:\n      hp: int\n      boss: ref:c\n      bio: text\n");
          return w.issues.list().map((i) => i.label);
        },
        { dryRun: true },
      );
      expect(seen.value).toEqual(["E2"]);
      expect(w.issues.list().map((i) => i.label)).toEqual(["E2"]);
      expect(w.search.text("archivist").map((h) => h.attr)).toEqual(["/bio"]);
    } finally {
      t.cleanup();
    }
  });

  it("a change is folded in before a transaction starts, so a rollback cannot undo it", () => {
    const t = tempWorld("types:\n  c:\n    attrs:\n      hp: int\n");
    try {
      const w = t.world;
      w.slice.write({
        time: 1,
        patches: [{ subjectId: "x", type: "c", path: "/boss", op: "replace", value: "subject://nobody" }],
      });
      const rebuild = vi.spyOn(w, "rebuild");
      t.setSchema("types:\n  c:\n    attrs:\n      hp: int\n      boss: ref:c\n");
      for (let i = 0; i < 2; i++) w.transaction(() => w.issues.list(), { dryRun: true });
      expect(() =>
        w.transaction(() => {
          w.subject.get("x");
          throw new Error("script failed");
        }),
      ).toThrow("script failed");
      expect(rebuild).toHaveBeenCalledTimes(1);
      expect(w.issues.list().map((i) => i.label)).toEqual(["E2"]);
    } finally {
      t.cleanup();
    }
  });

  it("loads the schema example in docs/world-engine.md", () => {
    const md = readFileSync(new URL("../../docs/world-engine.md", import.meta.url), "utf8");
    const blocks = [...md.matchAll(/```yaml\n(types:\n[\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toHaveLength(1);
    const s = parseSchema(blocks[0]);
    expect(Object.keys(s.types)).toEqual(["character", "location"]);
    expect(Object.fromEntries(defaultsFor(s, "character"))).toEqual({
      hp: 100,
      inventory: [],
      skills: [],
      stats: { str: 10 },
      events: [],
    });
  });

  it("the default schema of a new project loads, for both languages", () => {
    for (const language of ["en", "zh"] as const) {
      const s = parseSchema(defaultSchemaYaml({ title: "T", summary: "", language }));
      expect(Object.keys(s.types)).toEqual(["world", "character", "location", "faction", "item"]);
      expect(Object.fromEntries(defaultsFor(s, "character"))).toMatchObject({
        hp: 100,
        maxHp: 100,
        inventory: [],
        events: [],
      });
    }
  });
});

describe("openWorld", () => {
  let root: string | null = null;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("opens one world per project with the project's schema and database", () => {
    root = mkdtempSync(join(tmpdir(), "nb-ws-"));
    const ws = Workspace.init(root);
    const project = ws.createProject("novel");
    const world = openWorld(project);
    expect(openWorld(project)).toBe(world);
    expect(existsSync(join(project.root, ".nbook", "world.sqlite"))).toBe(true);
    world.slice.write({
      time: 0,
      patches: [{ subjectId: "aya", type: "character", name: "Aya", path: "/age", op: "replace", value: 17 }],
    });
    expect(world.subject.get("aya")).toMatchObject({ age: 17, hp: 100 });
    expect(() =>
      world.slice.write({
        time: 1,
        patches: [{ subjectId: "x", type: "spaceship", path: "/a", op: "replace", value: 1 }],
      }),
    ).toThrow(/unknown subject type/);
    ws.close();
    const again = openWorld(Workspace.open(root).project("novel"));
    expect(again.subject.list()).toEqual([{ id: "aya", type: "character", name: "Aya" }]);
    again.close();
  });
});
