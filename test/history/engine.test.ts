import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { History } from "../../src/history/history.js";
import { historyStats, pruneHistory, pushHistory, repairHistory } from "../../src/history/maintenance.js";
import { revertChanges } from "../../src/history/revert.js";
import { openWorld } from "../../src/world/world.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
afterEach(() => bed?.cleanup());

const CH = "manuscript/ch-03/index.md";
const v1 = "Para one.\n\nPara two.\n\nPara three.\n";

describe("file history engine", () => {
  it("records a write and reverts it to the exact previous bytes", async () => {
    bed = makeTestBed();
    expect((await bed.call("write", { path: CH, content: v1 })).ok).toBe(true);
    const r = await bed.call("write", { path: CH, content: "Rewritten.\n" }, { profile: "leader.default" });
    expect(r).toMatchObject({ ok: true });
    const h = History.of(bed.project);
    const list = h.index.list();
    expect(list[0]).toMatchObject({
      actor: "agent",
      profile: "leader.default",
      tool: "write",
      targets: [CH],
    });
    expect(list[1]).toMatchObject({ actor: "user", tool: "write" });
    const rev = await revertChanges(h, [list[0]], {});
    expect(rev).toMatchObject({ actor: "revert", reverts: [list[0].id] });
    expect(readFileSync(join(bed.project.root, CH), "utf8")).toBe(v1);
  });

  it("records an outside edit first, and it survives the agent change's revert", async () => {
    bed = makeTestBed();
    await bed.call("write", { path: CH, content: v1 });
    writeFileSync(join(bed.project.root, CH), v1.replace("Para one.", "Para one, by hand."));
    await bed.call(
      "edit",
      { path: CH, edits: [{ oldText: "Para three.", newText: "Para 3." }] },
      { profile: "leader.default" },
    );
    const h = History.of(bed.project);
    const [agent, outside] = h.index.list();
    expect(outside).toMatchObject({ actor: "outside", targets: [CH] });
    await revertChanges(h, [agent], {});
    expect(readFileSync(join(bed.project.root, CH), "utf8")).toBe(
      v1.replace("Para one.", "Para one, by hand."),
    );
  });
});

describe("bash and broken histories", () => {
  it("records what a bash command wrote and renamed, and reverts it", async () => {
    bed = makeTestBed();
    const root = bed.project.root;
    await bed.call("write", { path: CH, content: v1 });
    const r = await bed.call(
      "bash",
      { command: "echo fresh > notes.md && mv manuscript/ch-03/index.md manuscript/ch-03/draft.md" },
      { approved: true },
    );
    expect(r).toMatchObject({ ok: true });
    const h = History.of(bed.project);
    const [change] = h.index.list();
    expect(change).toMatchObject({ actor: "user", tool: "bash" });
    expect(change.targets?.sort()).toEqual(["manuscript/ch-03/draft.md", CH, "notes.md"].sort());
    await revertChanges(h, [change], {});
    expect(readFileSync(join(root, CH), "utf8")).toBe(v1);
    expect(existsSync(join(root, "manuscript/ch-03/draft.md"))).toBe(false);
    expect(existsSync(join(root, "notes.md"))).toBe(false);
  });

  it("never blocks a write when the history repository is corrupt, and repair starts it again", async () => {
    bed = makeTestBed();
    await bed.call("write", { path: CH, content: v1 });
    const gitDir = join(bed.project.root, ".nbook", "history.git");
    writeFileSync(join(gitDir, "HEAD"), "garbage\n");
    const h = History.of(bed.project);
    h.reset();
    const r = await bed.call("write", { path: CH, content: "Still written.\n" });
    expect(r.ok).toBe(true);
    expect(readFileSync(join(bed.project.root, CH), "utf8")).toBe("Still written.\n");
    const report = await repairHistory(h);
    expect(report.movedAside).toMatch(/^\.nbook\/history\.git\.broken-\d+$/);
    expect(existsSync(join(bed.project.root, report.movedAside as string, "HEAD"))).toBe(true);
    await bed.call("write", { path: CH, content: "After repair.\n" });
    const [last] = h.index.list();
    expect(last).toMatchObject({ tool: "write", targets: [CH] });
    await revertChanges(h, [last], {});
    expect(readFileSync(join(bed.project.root, CH), "utf8")).toBe("Still written.\n");
  });

  it("rebuilds a lost index from the commits' trailers", async () => {
    bed = makeTestBed();
    await bed.call("write", { path: CH, content: v1 }, { profile: "leader.default" });
    const h = History.of(bed.project);
    const before = h.index.list();
    const report = await repairHistory(h);
    expect(report.movedAside).toBeNull();
    expect(h.index.list()).toEqual(before);
  });
});

describe("prune, stats and push", () => {
  it("prunes older changes, keeps later ones revertible, reports the size, and pushes to a remote", async () => {
    bed = makeTestBed();
    await bed.call("write", { path: CH, content: v1 });
    await bed.call("write", { path: CH, content: `${v1}\nMore.\n` });
    await new Promise((r) => setTimeout(r, 20));
    const cut = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await bed.call("write", { path: CH, content: `${v1}\nMore, rewritten.\n` });
    const h = History.of(bed.project);
    const before = await historyStats(h);
    expect(before.changes).toBe(4);
    expect(before.repositoryBytes).toBeGreaterThan(0);
    expect((await pruneHistory(h, cut)).removed).toBe(3);
    const list = h.index.list();
    expect(list.map((c) => c.tool)).toEqual(["write", "history"]);
    await revertChanges(h, [list[0]], {});
    expect(readFileSync(join(bed.project.root, CH), "utf8")).toBe(`${v1}\nMore.\n`);

    const remote = join(bed.dir, "backup.git");
    execFileSync("git", ["init", "-q", "--bare", remote]);
    await pushHistory(h, remote);
    const head = readFileSync(join(bed.project.root, ".nbook/history.git/refs/heads/main"), "utf8").trim();
    expect(execFileSync("git", ["--git-dir", remote, "rev-parse", "main"], { encoding: "utf8" }).trim()).toBe(
      head,
    );
    await expect(pushHistory(h, "--upload-pack=evil")).rejects.toThrow(/URL or a path/);
  });
});

describe("rows", () => {
  it("reverts a World Engine slice an agent wrote, and the revert of that revert", async () => {
    bed = makeTestBed();
    const write = await bed.call(
      "execute_world",
      {
        code: `return world.slice.write({ time: 100, title: "arrival", patches: [
          { subjectId: "ana", type: "character", name: "Ana", path: "/hp", op: "replace", value: 90 }]}).sliceId;`,
      },
      { profile: "world.engine" },
    );
    expect(write).toMatchObject({ ok: true });
    const h = History.of(bed.project);
    const [change] = h.index.list();
    expect(change).toMatchObject({
      actor: "agent",
      profile: "world.engine",
      tool: "execute_world",
      commit: null,
    });
    const hp = () => (openWorld(bed.project).subject.get("ana") as { hp?: number } | null)?.hp;
    expect(hp()).toBe(90);
    const revert = await revertChanges(h, [change], {});
    expect(revert).toMatchObject({ actor: "revert", reverts: [change.id] });
    expect(hp()).toBeUndefined();
    await revertChanges(h, [revert as NonNullable<typeof revert>], {});
    expect(hp()).toBe(90);
  });
});
