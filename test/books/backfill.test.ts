import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { History } from "../../src/history/history.js";
import { runWorldScript } from "../../src/world/script/run.js";
import { reportTurn, type WorkflowBed, workflowBed } from "../workflows/fixtures.js";

let bed: WorkflowBed | null = null;
afterEach(async () => {
  await bed?.close();
  bed = null;
});

const MIRA = {
  subjectId: "mira",
  type: "character",
  name: "Mira Vale",
  time: "12 Fog 91 AL, 12:00",
  facts: { mood: "uneasy" },
};
const EEL_SELLER = {
  subjectId: "eel-seller",
  type: "character",
  name: "The eel-seller",
  time: "13 Fog 91 AL, 09:00",
  facts: { role: "eel-seller", mood: "calm" },
};

/** What the reader of each sample chapter proposes (readers are sessions 2 and 3; the caller is 1). */
function proposed(sceneThread = "the-cut-page") {
  return {
    "2": [
      reportTurn({
        lorebook: [
          {
            category: "characters",
            name: "eel-seller",
            title: "The eel-seller",
            text: "Sells eels on the causeway.",
          },
        ],
        plot: [
          {
            kind: "thread",
            name: "the-cut-page",
            title: "The cut page",
            summary: "Who cut the ledger's page?",
          },
          {
            kind: "scene",
            name: "ledger-found",
            title: "The ledger is found",
            summary: "Mira finds the ledger with a page cut out.",
            thread: sceneThread,
          },
        ],
        world: [MIRA],
      }),
    ],
    "3": [
      reportTurn({
        lorebook: [
          { category: "places", name: "third-creek", title: "The third creek", text: "Opens on the marsh." },
          // The same entry again from a later chapter: proposed once.
          { category: "characters", name: "eel-seller", title: "The eel-seller", text: "Again." },
        ],
        plot: [
          {
            kind: "promise",
            name: "the-bell-rings",
            title: "The bell rings",
            summary: "The third bell will ring.",
          },
          {
            kind: "chapter-brief",
            name: "low-water",
            title: "Low Water",
            summary: "The marsh shows its ribs; Mira counts the creeks.",
          },
        ],
        world: [EEL_SELLER],
      }),
    ],
  };
}

const lore = (p: string) => join(bed!.project.root, "lorebook", p, "index.md");

async function plot() {
  const { openPlotContext, listThreads, listPromises, listScenes, listChapters } = await import(
    "../../src/plot/index.js"
  );
  const pc = await openPlotContext(bed!.project, "user");
  const names = (rows: unknown[]) => (rows as { name: string }[]).map((r) => r.name);
  return {
    threads: names(listThreads(pc, { includeArchived: true, limit: 200 }).rows),
    promises: names(listPromises(pc, { limit: 200 }).rows),
    scenes: (listScenes(pc, { limit: 200 }).rows as { title: string }[]).map((s) => s.title),
    chapters: listChapters(pc, { includeArchived: true, limit: 200 }).rows as {
      id: number;
      name: string;
      title: string;
    }[],
    goal: (id: number) =>
      (
        pc.db.prepare("SELECT brief_goal AS goal FROM story_chapter WHERE id = ?").get(id) as {
          goal: string | null;
        }
      ).goal,
  };
}

/** A subject's state at a calendar time, and the titles of the world's slices. */
async function world(subjectId: string, time: string) {
  const r = await runWorldScript(
    bed!.project,
    `return { state: world.subject.get(${JSON.stringify(subjectId)}, { at: world.time.parse(${JSON.stringify(time)}) }), titles: world.slice.list({}).map((s) => s.title) };`,
    { access: "readonly" },
  );
  return r.value as { state: Record<string, unknown> | null; titles: string[] };
}

/** Every file of the project outside its control area, with a hash of its bytes. */
function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name);
      const rel = relative(root, abs);
      if (rel === ".nbook") continue;
      if (statSync(abs).isDirectory()) walk(abs);
      else out[rel] = createHash("sha256").update(readFileSync(abs)).digest("hex");
    }
  };
  walk(root);
  return out;
}

async function answered(answers: Record<string, boolean>, script = proposed()) {
  bed = await workflowBed({ sessions: script });
  const waiting = await bed.run("book-backfill", { batchSize: 4 });
  expect(waiting.status).toBe("waiting");
  bed.runs.answer(waiting.id, answers);
  const run = await bed.runs.drive(waiting.id);
  expect(run.error).toBeNull();
  expect(run.status).toBe("completed");
  return run;
}

describe("book-backfill", () => {
  it("raises the chapters' proposals as approvals in batches and writes nothing before an answer", async () => {
    bed = await workflowBed({ sessions: proposed() });
    const run = await bed.run("book-backfill", { batchSize: 4 });
    expect(run.status).toBe("waiting");
    const asks = bed.store.asks(run.id);
    expect(asks.map((a) => a.key)).toEqual(["batch-1", "batch-2"]);
    expect(asks[0].spec.description).toContain("[lorebook-1] lorebook/characters/eel-seller: The eel-seller");
    expect(asks[0].spec.description).toContain("[plot-2] thread the-cut-page");
    expect(asks[0].spec.description).toContain("[world-4] Mira Vale at 12 Fog 91 AL, 12:00");
    expect(asks[1].spec.description).toContain("[lorebook-5] lorebook/places/third-creek");
    expect(String(asks[0].spec.description).match(/eel-seller:/g)).toHaveLength(1);
    expect(existsSync(lore("characters/eel-seller"))).toBe(false);
    expect(bed.store.journal(run.id).filter((e) => e.kind === "tools.call")).toEqual([]);
  });

  it("approving batch 1 and rejecting batch 2 writes exactly batch 1's entries, by tool calls and no agent", async () => {
    const run = await answered({ "batch-1": true, "batch-2": false });
    expect(run.result).toMatchObject({
      proposals: 8,
      written: ["lorebook-1", "plot-2", "plot-3", "world-4"],
      failed: [],
    });
    // Batch 1: the lorebook file, the thread and its scene, Mira's mood at the chapter's time.
    expect(readFileSync(lore("characters/eel-seller"), "utf8")).toBe(
      "# The eel-seller\n\nSells eels on the causeway.\n",
    );
    const p = await plot();
    expect(p.threads).toContain("the-cut-page");
    expect(p.scenes).toContain("The ledger is found");
    const mira = await world("mira", MIRA.time);
    expect(mira.state?.mood).toBe("uneasy");
    // Nothing of batch 2.
    expect(existsSync(lore("places/third-creek"))).toBe(false);
    expect(p.promises).not.toContain("the-bell-rings");
    const lowWater = p.chapters.find((c) => c.name === "low-water");
    if (lowWater) expect(p.goal(lowWater.id) ?? "").not.toContain("counts the creeks");
    expect((await world("eel-seller", EEL_SELLER.time)).state).toBeNull();
    // No agent wrote: the only participants are the two chapter readers.
    expect(bed!.store.participants(run.id).map((x) => x.profileKey)).toEqual(["adhoc", "adhoc"]);
    // Every write is in the history, attributed to the run's call of its tool.
    const mine = History.of(bed!.project)
      .index.list({})
      .filter((c) => c.callId?.startsWith(`workflow:${run.id}#`));
    expect(mine.map((c) => c.tool).sort()).toEqual(
      ["execute_world", "save_story_scene", "save_story_thread", "write"].sort(),
    );
    for (const c of mine) expect(c).toMatchObject({ actor: "agent", session: bed!.callerId });
  });

  it("approving batch 2 writes the promise, the chapter's brief and a new World Engine subject", async () => {
    const run = await answered({ "batch-1": false, "batch-2": true });
    expect(run.result).toMatchObject({ written: ["lorebook-5", "plot-6", "plot-7", "world-8"], failed: [] });
    const p = await plot();
    expect(p.promises).toContain("the-bell-rings");
    const lowWater = p.chapters.find((c) => c.name === "low-water");
    expect(lowWater).toBeDefined();
    expect(p.goal(lowWater!.id)).toBe("The marsh shows its ribs; Mira counts the creeks.");
    expect((await world("eel-seller", EEL_SELLER.time)).state).toMatchObject({
      role: "eel-seller",
      mood: "calm",
    });
    expect(p.threads).not.toContain("the-cut-page");
    expect(existsSync(lore("characters/eel-seller"))).toBe(false);
  });

  it("a proposal that cannot be written is listed with its error; the others are still written", async () => {
    const run = await answered({ "batch-1": true, "batch-2": false }, proposed("no-such-thread"));
    expect(run.result).toMatchObject({
      written: ["lorebook-1", "plot-2", "world-4"],
      failed: [{ id: "plot-3", code: "invalid_input", message: expect.stringContaining("no-such-thread") }],
    });
    expect((await plot()).scenes).not.toContain("The ledger is found");
  });

  it("rejecting every batch writes nothing: the project's files, plot, world and history are unchanged", async () => {
    bed = await workflowBed({ sessions: proposed() });
    const before = {
      files: tree(bed.project.root),
      plot: JSON.stringify(await plot()),
      world: await world("mira", MIRA.time),
      changes: History.of(bed.project).index.list({}).length,
    };
    const waiting = await bed.run("book-backfill", { batchSize: 4 });
    bed.runs.answer(waiting.id, { "batch-1": false, "batch-2": false });
    const run = await bed.runs.drive(waiting.id);
    expect(run.status).toBe("completed");
    expect(run.result).toMatchObject({ written: [], failed: [] });
    expect(bed.store.journal(run.id).filter((e) => e.kind === "tools.call")).toEqual([]);
    expect(tree(bed.project.root)).toEqual(before.files);
    expect(JSON.stringify(await plot())).toBe(before.plot);
    expect(await world("mira", MIRA.time)).toEqual(before.world);
    // The sample has Mira otherwise at that time: the approved batch's "uneasy" is the backfill's.
    expect(before.world.state?.mood).not.toBe("uneasy");
    expect(History.of(bed.project).index.list({})).toHaveLength(before.changes);
  });

  it("a run stopped mid-way (its driver gone, as in a crash) resumes from the journal without reading a chapter twice", async () => {
    bed = await workflowBed({ sessions: proposed() }, { latencyMs: 300 });
    const { getWorkflow } = await import("../../src/workflows/catalog.js");
    const w = await getWorkflow(bed.workspace, bed.project, "book-backfill");
    const started = await bed.runs.start({
      target: { workflow: w },
      args: { concurrency: 1, batchSize: 4 },
      callerSessionId: bed.callerId,
      mode: "normal",
    });
    const stop = new AbortController();
    const first = bed.runs.drive(started.id, stop.signal, () => true);
    const invoked = () => bed!.store.journal(started.id).filter((e) => e.kind === "session.invoke").length;
    while (invoked() < 1) await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    const stopped = await first;
    expect(stopped.status).toBe("running");
    const resumed = await bed.runs.drive(started.id);
    expect(resumed.status).toBe("waiting");
    expect(bed.store.asks(started.id).map((a) => a.key)).toEqual(["batch-1", "batch-2"]);
    // Each chapter's reader was invoked once in all.
    const readers = bed.store.journal(started.id).filter((e) => e.kind === "session.invoke");
    expect(readers).toHaveLength(2);
    expect(bed.store.journal(started.id).filter((e) => e.kind === "agents.create")).toHaveLength(2);
  });
});

describe("examples/backfill-script.yaml", () => {
  it("runs book-backfill offline on the sample: the approved batch's entry and thread are written, the rejected one's are not", async () => {
    const { parse } = await import("yaml");
    const script = parse(
      readFileSync(new URL("../../examples/backfill-script.yaml", import.meta.url), "utf8"),
    );
    bed = await workflowBed(script);
    const waiting = await bed.run("book-backfill", { batchSize: 2 });
    expect(bed.store.asks(waiting.id).map((a) => a.key)).toEqual(["batch-1", "batch-2"]);
    bed.runs.answer(waiting.id, { "batch-1": true, "batch-2": false });
    const run = await bed.runs.drive(waiting.id);
    expect(run.error).toBeNull();
    expect(run.result).toMatchObject({ written: ["lorebook-1", "plot-2"], failed: [] });
    expect(readFileSync(lore("characters/eel-seller"), "utf8")).toContain("causeway");
    expect(existsSync(lore("places/third-creek"))).toBe(false);
    expect((await plot()).threads).toContain("the-cut-page");
  });
});
