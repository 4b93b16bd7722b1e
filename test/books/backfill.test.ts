import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reportTurn, type WorkflowBed, workflowBed } from "../workflows/fixtures.js";

let bed: WorkflowBed | null = null;
afterEach(async () => {
  await bed?.close();
  bed = null;
});

/** What the reader of each sample chapter proposes. */
const PROPOSED = {
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
      ],
      world: [],
    }),
  ],
  "3": [
    reportTurn({
      lorebook: [
        { category: "places", name: "third-creek", title: "The third creek", text: "Opens on the marsh." },
        // The same entry again from a later chapter: proposed once.
        { category: "characters", name: "eel-seller", title: "The eel-seller", text: "Again." },
      ],
      plot: [],
      world: [
        {
          subjectId: "mira",
          type: "character",
          name: "Mira Vale",
          time: "12 Fog 91 AL, 12:00",
          facts: { mood: "uneasy" },
        },
      ],
    }),
  ],
};

/** The writer of the approved batch writes the lorebook entry it was given, then reports. */
const WRITER = [
  {
    toolCalls: [
      {
        name: "write",
        input: {
          path: "lorebook/characters/eel-seller/index.md",
          content: "# The eel-seller\n\nSells eels on the causeway.\n",
        },
      },
    ],
  },
  { text: "Wrote lorebook-1 and plot-2." },
];

const lore = (p: string) => join(bed!.project.root, "lorebook", p, "index.md");
const writerSessions = () =>
  bed!.store.participants(bed!.store.listRuns()[0].id).filter((p) => p.profileKey.startsWith("leader"));

describe("book-backfill", () => {
  it("raises the chapters' proposals as approvals in batches and writes nothing before an answer", async () => {
    bed = await workflowBed({ sessions: PROPOSED });
    const run = await bed.run("book-backfill", { batchSize: 2 });
    expect(run.status).toBe("waiting");
    const asks = bed.store.asks(run.id);
    expect(asks.map((a) => a.key)).toEqual(["batch-1", "batch-2"]);
    expect(asks[0].spec.description).toContain("[lorebook-1] lorebook/characters/eel-seller: The eel-seller");
    expect(asks[0].spec.description).toContain("[plot-2] thread the-cut-page");
    expect(asks[1].spec.description).toContain("[lorebook-3] lorebook/places/third-creek");
    expect(asks[1].spec.description).toContain("[world-4] Mira Vale at 12 Fog 91 AL, 12:00");
    expect(String(asks[0].spec.description).match(/eel-seller:/g)).toHaveLength(1);
    expect(existsSync(lore("characters/eel-seller"))).toBe(false);
    expect(writerSessions()).toEqual([]);
  });

  it("approving a batch hands exactly its proposals to one writer; the rejected batch reaches no agent", async () => {
    bed = await workflowBed({ sessions: { ...PROPOSED, "4": WRITER } });
    const waiting = await bed.run("book-backfill", { batchSize: 2 });
    bed.runs.answer(waiting.id, { "batch-1": true, "batch-2": false });
    const run = await bed.runs.drive(waiting.id);
    expect(run.error).toBeNull();
    expect(run.status).toBe("completed");
    expect(run.result).toMatchObject({ proposals: 4, written: ["lorebook-1", "plot-2"] });
    expect(readFileSync(lore("characters/eel-seller"), "utf8")).toContain("Sells eels");
    const writers = writerSessions();
    expect(writers).toHaveLength(1);
    const prompt = JSON.stringify(
      bed.harness.store.activePath(writers[0].sessionId).find((e) => e.kind === "user")?.data,
    );
    expect(prompt).toContain("lorebook-1");
    expect(prompt).toContain("plot-2");
    expect(prompt).not.toContain("lorebook-3");
    expect(prompt).not.toContain("world-4");
    expect(existsSync(lore("places/third-creek"))).toBe(false);
  });

  it("rejecting every batch writes nothing and creates no writer", async () => {
    bed = await workflowBed({ sessions: PROPOSED });
    const waiting = await bed.run("book-backfill", { batchSize: 2 });
    bed.runs.answer(waiting.id, { "batch-1": false, "batch-2": false });
    const run = await bed.runs.drive(waiting.id);
    expect(run.status).toBe("completed");
    expect(run.result).toMatchObject({ written: [] });
    expect(writerSessions()).toEqual([]);
    expect(existsSync(lore("characters/eel-seller"))).toBe(false);
  });

  it("a run stopped mid-way (its driver gone, as in a crash) resumes from the journal without reading a chapter twice", async () => {
    bed = await workflowBed({ sessions: PROPOSED }, { latencyMs: 300 });
    const { getWorkflow } = await import("../../src/workflows/catalog.js");
    const w = await getWorkflow(bed.workspace, bed.project, "book-backfill");
    const started = await bed.runs.start({
      target: { workflow: w },
      args: { concurrency: 1, batchSize: 2 },
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
    expect(readFileSync(lore("characters/eel-seller"), "utf8")).toContain("causeway");
    expect(existsSync(lore("places/third-creek"))).toBe(false);
    const { openPlotContext, listThreads } = await import("../../src/plot/index.js");
    const pc = await openPlotContext(bed.project, "user");
    expect((listThreads(pc, {}).rows as { name: string }[]).map((t) => t.name)).toContain("the-cut-page");
  });
});
