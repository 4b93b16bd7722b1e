import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestBed, type TestBed } from "../helpers.js";
import { serveFixture } from "../serve/fixture.js";
import { type Flipper, type FlipState, startFlipper, treeOf } from "./race-fixture.js";

// Item 1 of issue 17: a background job flips a project folder between absent, a link out of the
// workspace and a link into the control area while the agent writes through it. Only the safety
// property is asserted (nothing lands outside the project or in .nbook/), never how often a write
// happened to be refused.

let bed: TestBed;
let root: string;
let outside: string;
let controlBefore: string[];
let flipper: Flipper | null;
beforeEach(() => {
  bed = makeTestBed("novel");
  root = bed.project.root;
  // Outside the workspace, on the same file system.
  outside = join(bed.dir, "outside");
  mkdirSync(outside);
  controlBefore = controlArea();
  flipper = null;
});
afterEach(async () => {
  await flipper?.stop();
  bed.cleanup();
});

/** The project's `d` flipping between absent, a link out of the workspace and one to the agent profiles. */
function flipD(extra: FlipState[] = []): Promise<Flipper> {
  return startFlipper(join(root, "d"), [
    { absent: true },
    { link: outside },
    ...extra,
    { link: ".nbook/agent/profiles" },
  ]);
}

/** The control area less NeuroBook's own history and search index of the project, which writes update. */
function controlArea(projectRoot = root): string[] {
  return treeOf(join(projectRoot, ".nbook")).filter(
    (p) => !/^(history\.(git(\/|$)|sqlite)|search\.sqlite)/.test(p),
  );
}

function expectNothingEscaped(): void {
  expect(treeOf(outside)).toEqual([]);
  expect(controlArea()).toEqual(controlBefore);
}

// Every attempt that reaches its write is also recorded in the project's history (a git commit).
const RACE_TIMEOUT = 120_000;
// The thousand-write loop: a recorded write per attempt takes a while on a loaded machine.
const THOUSAND_TIMEOUT = 300_000;

describe("writes cannot be raced out of the project", () => {
  it(
    "1,000 `write d/x.md` in normal mode while d flips: none lands outside or in .nbook/",
    async () => {
      flipper = await flipD();
      const codes = new Map<string, number>();
      for (let i = 0; i < 1000; i++) {
        const r = await bed.call("write", { path: "d/x.md", content: `attempt ${i}\n` });
        const code = r.ok ? "ok" : r.error.code;
        codes.set(code, (codes.get(code) ?? 0) + 1);
        if (!r.ok) expect(JSON.stringify(r.error)).not.toContain(bed.dir);
      }
      await flipper.stop();
      flipper = null;
      expectNothingEscaped();
      // A refused write is a clear refusal (a link out, into .nbook/, a folder removed under it), never an internal error.
      const clear = ["ok", "path_escape", "not_allowed", "conflict", "not_found"];
      expect([...codes.keys()].filter((c) => !clear.includes(c))).toEqual([]);
    },
    THOUSAND_TIMEOUT,
  );

  it(
    "edit of d/x.md while d flips between the real folder and links out: the outside copy is never touched",
    async () => {
      // The real folder starts aside; the flipper moves it in and out of `d`.
      mkdirSync(join(root, "d.real"));
      writeFileSync(join(root, "d.real", "x.md"), "The bell rang.\n");
      writeFileSync(join(outside, "x.md"), "The bell rang.\n");
      // The real folder stays a while, so an edit can read it there and then find a link when it writes.
      flipper = await flipD([{ real: join(root, "d.real"), dwellUs: 400 }]);
      for (let i = 0; i < 300; i++) {
        await bed.call("edit", {
          path: "d/x.md",
          edits: [{ oldText: "rang.", newText: "rang.!" }],
        });
      }
      await flipper.stop();
      flipper = null;
      expect(treeOf(outside)).toEqual(["x.md"]);
      expect(readFileSync(join(outside, "x.md"), "utf8")).toBe("The bell rang.\n");
      expect(controlArea()).toEqual(controlBefore);
    },
    RACE_TIMEOUT,
  );
});

describe("apply_patch cannot be raced out of the project", () => {
  it(
    "adds, updates, moves and deletes through a flipping d: the outside files are neither read, changed nor removed",
    async () => {
      writeFileSync(join(outside, "x.md"), "OUTSIDE x\n");
      writeFileSync(join(outside, "y.md"), "OUTSIDE y\n");
      mkdirSync(join(root, "d.real"));
      flipper = await flipD([{ real: join(root, "d.real"), dwellUs: 400 }]);
      const patches = [
        "*** Add File: d/x.md\n+added",
        "*** Update File: d/x.md\n@@\n-added\n+updated",
        "*** Update File: d/x.md\n*** Move to: d/y.md\n@@\n-updated\n+moved",
        "*** Delete File: d/y.md",
        "*** Add File: lorebook/m.md\n+to move",
        "*** Update File: lorebook/m.md\n*** Move to: d/m.md\n@@\n-to move\n+moved in",
        "*** Update File: d/m.md\n*** Move to: lorebook/m.md\n@@\n-moved in\n+to move",
        "*** Delete File: d/x.md",
      ];
      for (let i = 0; i < 400; i++) {
        const patch = `*** Begin Patch\n${patches[i % patches.length]}\n*** End Patch`;
        const r = await bed.call("apply_patch", { patch });
        expect(JSON.stringify(r)).not.toContain("OUTSIDE");
      }
      await flipper.stop();
      flipper = null;
      expect(treeOf(outside)).toEqual(["x.md", "y.md"]);
      expect(readFileSync(join(outside, "x.md"), "utf8")).toBe("OUTSIDE x\n");
      expect(readFileSync(join(outside, "y.md"), "utf8")).toBe("OUTSIDE y\n");
      expect(controlArea()).toEqual(controlBefore);
    },
    RACE_TIMEOUT,
  );
});

describe("plan mode's .agent/plan/ exemption is held at the write", () => {
  it(
    "a plan-mode write of .agent/plan/sub/p.md never lands where sub points when it flips to a link",
    async () => {
      const lorebookBefore = treeOf(join(root, "lorebook"));
      flipper = await startFlipper(join(root, ".agent", "plan", "sub"), [
        { absent: true, dwellUs: 200 },
        { link: "../../lorebook" },
        { link: outside },
        { link: "../../.nbook/agent/profiles" },
      ]);
      for (let i = 0; i < 400; i++) {
        const path = i % 2 ? ".agent/plan/sub/p.md" : ".agent/plan/sub/q.md";
        await bed.call("write", { path, content: `plan ${i}\n` }, { mode: "plan" });
      }
      await flipper.stop();
      flipper = null;
      expect(treeOf(join(root, "lorebook"))).toEqual(lorebookBefore);
      expectNothingEscaped();
    },
    RACE_TIMEOUT,
  );
});

describe("the workbench's file save cannot be raced out of the project", () => {
  it(
    "PUT files/write of d/x.md while d flips: nothing outside or in .nbook/",
    async () => {
      const fx = await serveFixture();
      try {
        const froot = fx.bed.project.root;
        const fout = join(fx.bed.dir, "outside");
        mkdirSync(fout);
        const before = controlArea(froot);
        const flip = await startFlipper(join(froot, "d"), [
          { absent: true },
          { link: fout },
          { link: ".nbook/agent/profiles" },
        ]);
        try {
          for (let i = 0; i < 300; i++) {
            const res = await fx.api("PUT", "/api/projects/novel/files/write", {
              path: "d/x.md",
              content: `save ${i}\n`,
              baseVersion: null,
            });
            expect(await res.text()).not.toContain(fx.bed.dir);
          }
        } finally {
          await flip.stop();
        }
        expect(treeOf(fout)).toEqual([]);
        expect(controlArea(froot)).toEqual(before);
      } finally {
        await fx.close();
      }
    },
    RACE_TIMEOUT,
  );
});

describe("stale temp files", () => {
  it("the next write into a folder removes a killed writer's temp file, not a live one's", async () => {
    const dir = join(root, "lorebook");
    const stale = join(dir, ".mira.md.0123456789ab.tmp");
    const live = join(dir, ".mira.md.ba9876543210.tmp");
    const unrelated = join(dir, ".notes.tmp");
    for (const f of [stale, live, unrelated]) writeFileSync(f, "half a write");
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(stale, old, old);
    utimesSync(unrelated, old, old);
    const r = await bed.call("write", { path: "lorebook/tomas.md", content: "Tomas.\n" });
    expect(r.ok).toBe(true);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(unrelated)).toBe(true);
  });
});
