import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { closeWorkflowSandbox } from "../../src/workflows/sandbox/index.js";
import { makeTestBed, type TestBed } from "../helpers.js";
import { type WorkflowBed, workflowBed } from "../workflows/fixtures.js";
import { type Flipper, startFlipper } from "./race-fixture.js";

// Re-opens by name (issue 17, item 1): a folder checked inside the project, then flipped to a link
// out of it before the file is opened again. A raced read may fail; it must never return host text.

const SECRET = "HOST SECRET";

let flipper: Flipper | null = null;
/** Stopped before the folders it flips are removed. */
async function stopFlipper(): Promise<void> {
  await flipper?.stop();
  flipper = null;
}
afterAll(() => closeWorkflowSandbox());

describe("wf.workspace.read", () => {
  let bed: WorkflowBed;
  let outside: string;
  afterEach(async () => {
    await stopFlipper();
    await bed.close();
    rmSync(outside, { recursive: true, force: true });
  });

  it("never returns a host file's text while d flips between the real folder and a link out", async () => {
    bed = await workflowBed({ turns: [{ text: "unused" }] });
    const root = bed.project.root;
    // The bed's folder is the workspace: the host file sits beside it.
    outside = mkdtempSync(join(tmpdir(), "nbook-outside-"));
    writeFileSync(join(outside, "x.md"), `${SECRET}\n`);
    mkdirSync(join(root, "d.real"));
    writeFileSync(join(root, "d.real", "x.md"), "project text\n");
    flipper = await startFlipper(join(root, "d"), [
      { real: join(root, "d.real"), dwellUs: 60 },
      { link: outside, dwellUs: 20 },
    ]);
    // Eight reads at a time (the widest fan-out a run allows), so the run takes few passes.
    const script = `export default async function run(wf) {
      const got = await wf.map(Array.from({ length: 240 }, (_, i) => i), () =>
        wf.workspace.read("d/x.md").catch((e) => e.code), { concurrency: 8 });
      const seen = {};
      for (const g of got) seen[g] = (seen[g] || 0) + 1;
      return seen;
    }`;
    const run = await bed.runs.drive(
      (await bed.runs.start({ target: { script }, args: {}, callerSessionId: bed.callerId })).id,
    );
    await stopFlipper();
    expect(run.status).toBe("completed");
    expect(JSON.stringify(run.result)).not.toContain(SECRET);
    expect(JSON.stringify(run.result)).toContain("project text");
  });
});

describe("the skill reader", () => {
  let bed: TestBed;
  afterEach(async () => {
    await stopFlipper();
    bed.cleanup();
  });

  it("never returns a host file's text while a project skill's folder flips to a link out", async () => {
    bed = makeTestBed();
    const skill = join(bed.project.root, ".nbook", "agent", "skills", "bells");
    mkdirSync(join(skill, "refs.real"), { recursive: true });
    writeFileSync(
      join(skill, "SKILL.md"),
      "---\nname: bells\ndescription: The bells.\nwhen_to_use: Bell scenes.\n---\nSee refs/words.md.\n",
    );
    writeFileSync(join(skill, "refs.real", "words.md"), "Bells ring at low tide.\n");
    const outside = join(bed.dir, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "words.md"), `${SECRET}\n`);
    flipper = await startFlipper(join(skill, "refs"), [
      { real: join(skill, "refs.real"), dwellUs: 60 },
      { link: outside, dwellUs: 20 },
    ]);
    let read = 0;
    for (let i = 0; i < 1000; i++) {
      const r = await bed.call("read", { path: "skill://bells/refs/words.md" }, { profile: "writer" });
      expect(JSON.stringify(r)).not.toContain(SECRET);
      if (r.ok) read++;
    }
    await stopFlipper();
    expect(read).toBeGreaterThan(0);
  });
});

describe("folder listings", () => {
  let bed: TestBed;
  afterEach(async () => {
    await stopFlipper();
    bed.cleanup();
  });

  it("`read d` never lists a host folder's names while d flips between the real folder and a link out", async () => {
    bed = makeTestBed();
    const root = bed.project.root;
    mkdirSync(join(root, "d.real"));
    writeFileSync(join(root, "d.real", "chapter.md"), "text\n");
    const outside = join(bed.dir, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "HOST-NAME.md"), "host\n");
    flipper = await startFlipper(join(root, "d"), [
      { real: join(root, "d.real"), dwellUs: 60 },
      { link: outside, dwellUs: 20 },
    ]);
    let listed = 0;
    for (let i = 0; i < 1000; i++) {
      const r = await bed.call("read", { path: "d" });
      expect(JSON.stringify(r)).not.toContain("HOST-NAME");
      if (r.ok) listed++;
    }
    await stopFlipper();
    expect(listed).toBeGreaterThan(0);
  });
});
