import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatherCanon } from "../../src/lorebook/canon.js";
import { canonSettings } from "../../src/lorebook/config.js";
import { plotDb } from "../../src/plot/db.js";
import { plotContext } from "../../src/plot/index.js";
import { saveScene } from "../../src/plot/scenes.js";
import { saveThread } from "../../src/plot/threads.js";
import type { Project } from "../../src/workspace/project.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { openWorld } from "../../src/world/world.js";

let dir: string;
let workspace: Workspace;
let project: Project;
let early: number;
let late: number;
const count = (t: string) => Math.ceil(t.length / 4);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "nbook-canon-"));
  workspace = Workspace.init(dir);
  project = workspace.createProject("novel");
  const world = openWorld(project);
  world.slice.write({
    time: 100,
    patches: [
      { subjectId: "mara", type: "character", name: "Mara", path: "/skills", op: "append", value: "sailing" },
    ],
  });
  world.slice.write({
    time: 300,
    patches: [{ subjectId: "mara", path: "/scar", op: "replace", value: "left cheek" }],
  });
  const pc = plotContext(project, "user");
  const thread = saveThread(pc, { action: "create", name: "main", title: "Main" });
  early = saveScene(pc, {
    action: "create",
    threadId: thread.id,
    title: "Harbour",
    worldAnchor: { startInstant: 150, endInstant: 200 },
  }).id;
  late = saveScene(pc, {
    action: "create",
    threadId: thread.id,
    title: "After the fire",
    worldAnchor: { startInstant: 350, endInstant: 400 },
  }).id;
  // A chapter holding the later scene, named as a writer's payload names it.
  const db = plotDb(project);
  const ch = db
    .prepare("INSERT INTO story_chapter (sort_order, name, title) VALUES (0, 'ch-two', 'Two')")
    .run();
  db.prepare("UPDATE story_scene SET chapter_id = ?, chapter_sort_order = 0 WHERE id = ?").run(
    ch.lastInsertRowid,
    late,
  );
  const lore = join(project.root, "lorebook");
  mkdirSync(join(lore, "people"), { recursive: true });
  writeFileSync(
    join(lore, "people", "mara.md"),
    "---\nkeys: [Mara]\naliases: [玛拉]\nsubject: mara\n---\n# Mara\nA smuggler.\n",
  );
  writeFileSync(join(lore, "broken.md"), "---\nkeys: [Harbour]\npriority: [1\n---\nBroken.\n");
  writeFileSync(join(lore, "notes.md"), "# Notes without front matter\nMara is mentioned here.\n");
});

afterAll(() => {
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

const settings = { budgetTokens: 4000, depth: 1 };

describe("canon gathered for a call", () => {
  it("shows a subject's World Engine state at the scene's story time, never a later one", () => {
    const before = gatherCanon(
      project,
      { sceneId: early },
      [{ source: "brief", text: "玛拉 at the quay" }],
      settings,
      count,
    );
    expect(before.scene).toMatchObject({ sceneId: early, instant: 200, title: "Harbour" });
    expect(before.section).toContain("A smuggler.");
    expect(before.section).toContain("sailing");
    expect(before.section).not.toContain("left cheek");
    expect(before.section).toMatch(/<<<untrusted-canon [0-9a-f]+>>>/);

    const after = gatherCanon(
      project,
      { chapter: "ch-two" },
      [{ source: "brief", text: "Mara again" }],
      settings,
      count,
    );
    expect(after.scene).toMatchObject({ sceneId: late, instant: 400 });
    expect(after.section).toContain("left cheek");
  });

  it("without a scene time shows the static text only", () => {
    const none = gatherCanon(project, {}, [{ source: "brief", text: "Mara" }], settings, count);
    expect(none.scene).toBeNull();
    expect(none.section).toContain("A smuggler.");
    expect(none.section).not.toContain("sailing");
  });

  it("lists a file with broken front matter with its line; the other entries still work", () => {
    const c = gatherCanon(project, {}, [{ source: "brief", text: "Mara in the Harbour" }], settings, count);
    expect(c.problems).toEqual([
      { path: "lorebook/broken.md", line: 3, message: expect.stringContaining("YAML") },
    ]);
    expect(c.activation.included.map((a) => a.entry.path)).toEqual(["lorebook/people/mara.md"]);
  });

  it("reads the canon settings per project and profile; a bad value is a config error with its pointer", () => {
    expect(canonSettings(project, "writer")).toEqual({ enabled: true, budgetTokens: 2000, depth: 2 });
    mkdirSync(join(project.root, ".nbook"), { recursive: true });
    const file = join(project.root, ".nbook", "config.json");
    writeFileSync(
      file,
      JSON.stringify({ canon: { enabled: false, depth: 0, profiles: { writer: { budgetTokens: 500 } } } }),
    );
    expect(canonSettings(project, "writer")).toEqual({ enabled: false, budgetTokens: 500, depth: 0 });
    expect(canonSettings(project, "director").budgetTokens).toBe(2000);
    writeFileSync(file, JSON.stringify({ canon: { depth: 9 } }));
    expect(() => canonSettings(project, "writer")).toThrow(
      expect.objectContaining({
        code: "config_error",
        fields: [expect.objectContaining({ pointer: "/canon/depth" })],
      }),
    );
    rmSync(file);
  });
});
