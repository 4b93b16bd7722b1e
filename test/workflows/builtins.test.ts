import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { closeWorkflowSandbox } from "../../src/workflows/sandbox/index.js";
import { reportTurn, type WorkflowBed, workflowBed } from "./fixtures.js";

let bed: WorkflowBed | null = null;
afterEach(async () => {
  await bed?.close();
  bed = null;
});
afterAll(() => closeWorkflowSandbox());

const ideas = (angle: string) => ({
  ideas: [
    { idea: `${angle} idea one`, value: "v1", risk: "r1" },
    { idea: `${angle} idea two`, value: "v2", risk: "r2" },
  ],
});

describe("built-in workflows end to end through the harness", () => {
  it("brainstorm: one adhoc agent per angle (children of the caller), merged in input order, ranked by a judge; ephemerals archived", async () => {
    // Session 1 is the caller; the angle agents are created in input order (2, 3, 4), the judge is 5.
    bed = await workflowBed({
      sessions: {
        "2": [reportTurn(ideas("voice"))],
        "3": [reportTurn(ideas("stakes"))],
        "4": [reportTurn(ideas("place"))],
        "5": [
          reportTurn({
            ranking: [
              { id: "2.1", score: 9, why: "sharpest" },
              { id: "1.2", score: 7, why: "fresh" },
              { id: "9.9", score: 1, why: "not a candidate" },
            ],
            recommendation: "Go with the stakes idea.",
          }),
        ],
      },
    });
    const run = await bed.run("brainstorm", {
      topic: "How Mira learns the bell's secret",
      angles: ["voice", "stakes", "place"],
      ideasPerAngle: 2,
      concurrency: 2,
    });
    expect(run.error).toBeNull();
    expect(run.status).toBe("completed");
    const result = run.result as {
      perspectives: Array<{ angle: string; ideas: Array<{ idea: string }> }>;
      ranking: Array<{ id: string; idea: string; score: number }>;
      recommendation: string;
    };
    expect(result.perspectives.map((p) => p.angle)).toEqual(["voice", "stakes", "place"]);
    expect(result.perspectives[1].ideas[0].idea).toBe("stakes idea one");
    expect(result.ranking.map((r) => [r.id, r.idea, r.score])).toEqual([
      ["2.1", "stakes idea one", 9],
      ["1.2", "voice idea two", 7],
    ]);
    expect(result.recommendation).toBe("Go with the stakes idea.");
    const participants = bed.store.participants(run.id);
    expect(participants.map((p) => p.sessionId)).toEqual(["2", "3", "4", "5"]);
    for (const p of participants) {
      const s = bed.harness.store.session(p.sessionId);
      expect(s.parentSessionId).toBe(bed.callerId);
      expect(s.profileKey).toBe("adhoc");
      expect(s.status).toBe("archived");
    }
    // The judge saw every candidate.
    const judgeCall = bed.harness.store.activePath("5").find((e) => e.kind === "user");
    expect(JSON.stringify(judgeCall?.data)).toContain("place idea two");
    expect(run.progress).toMatchObject({ phase: "judge", done: 1, total: 1 });
  });

  it("brainstorm: the fan-out honours its bound, measured by the model calls in flight", async () => {
    const angles = ["a", "b", "c", "d", "e"];
    const sessions: Record<string, Array<ReturnType<typeof reportTurn>>> = {};
    angles.forEach((angle, i) => {
      sessions[String(i + 2)] = [reportTurn(ideas(angle))];
    });
    sessions["7"] = [reportTurn({ ranking: [], recommendation: "none" })];
    bed = await workflowBed({ sessions }, { latencyMs: 150 });
    const run = await bed.run("brainstorm", { topic: "t", angles, ideasPerAngle: 1, concurrency: 2 });
    expect(run.error).toBeNull();
    expect(bed.calls.max).toBe(2);
  });

  it("brainstorm: an agent whose data does not match its output schema fails the run with pointers", async () => {
    bed = await workflowBed({ sessions: { "2": [reportTurn({ ideas: [{ idea: "x" }] })] } });
    const run = await bed.run("brainstorm", { topic: "t", angles: ["voice"] });
    expect(run.status).toBe("failed");
    expect(run.error?.message).toContain("/data/ideas/0/value");
  });

  it("chapter-write-review-revise: the writer drafts, reviewers return issues, the writer revises once and the loop stops when no major issue remains", async () => {
    const path = "manuscript/03-the-bell-road/index.md";
    const write = (content: string) => ({ toolCalls: [{ name: "write", input: { path, content } }] });
    const report = (summary: string) => ({
      toolCalls: [{ name: "report_result", input: { result: summary, data: { summary } } }],
    });
    const review = (issues: Array<{ severity: string; problem: string }>) =>
      reportTurn({ overall: "ok", issues: issues.map((i) => ({ ...i, revision: `fix: ${i.problem}` })) });
    bed = await workflowBed({
      sessions: {
        // The writer (session 2) drafts, then revises after round 1.
        "2": [
          write("# Chapter 3 — The Bell Road\n\nMira walked. Tomas flew.\n"),
          report("First draft."),
          {
            ...write("# Chapter 3 — The Bell Road\n\nMira walked. Tomas limped behind.\n"),
            expect: { lastUser: "1. [consistency] Tomas cannot fly" },
          },
          report("Revised: Tomas walks."),
        ],
        "3": [review([{ severity: "major", problem: "Tomas cannot fly" }])],
        "4": [review([{ severity: "minor", problem: "slow opening" }])],
        "5": [review([])],
        "6": [review([{ severity: "minor", problem: "one long sentence" }])],
      },
    });
    const run = await bed.run("chapter-write-review-revise", {
      chapterPath: path,
      brief: "Mira and Tomas take the bell road.",
      reviewers: ["consistency", "pacing"],
      maxRounds: 3,
    });
    expect(run.error).toBeNull();
    const result = run.result as {
      rounds: Array<{ majorIssues: number; minorIssues: number }>;
      converged: boolean;
      finalSummary: string;
      writerSessionId: string;
    };
    expect(result.converged).toBe(true);
    expect(result.rounds.map((r) => [r.majorIssues, r.minorIssues])).toEqual([
      [1, 1],
      [0, 1],
    ]);
    expect(result.finalSummary).toBe("Revised: Tomas walks.");
    expect(readFileSync(join(bed.project.root, path), "utf8")).toContain("Tomas limped behind.");
    // The writer is a real writer session, a child of the caller, kept (not ephemeral).
    const writer = bed.harness.store.session(result.writerSessionId);
    expect(writer).toMatchObject({ profileKey: "writer", parentSessionId: bed.callerId, status: "idle" });
    expect(bed.model.remaining).toBe(0);
  });

  it("book-digest: chapters summarised in parallel and merged in order into a digest the writer writes under lorebook/", async () => {
    const summary = (title: string) =>
      reportTurn({ summary: `${title} summary`, events: [`${title} event`], characters: ["Mira"] });
    bed = await workflowBed({
      sessions: {
        "2": [summary("Drowned Bell")],
        "3": [summary("Low Water")],
        "4": [
          {
            toolCalls: [
              {
                name: "write",
                input: { path: "lorebook/digest.md", content: "# Digest\n\nDrowned Bell summary\n" },
              },
            ],
            expect: { lastUser: "## 2. Chapter 2 — Low Water" },
          },
          {
            toolCalls: [
              { name: "report_result", input: { result: "Wrote it.", data: { summary: "digest" } } },
            ],
          },
        ],
      },
    });
    const run = await bed.run("book-digest", {});
    expect(run.error).toBeNull();
    const result = run.result as {
      chapterCount: number;
      summaries: Array<{ title: string; summary: string }>;
    };
    expect(result.chapterCount).toBe(2);
    expect(result.summaries.map((s) => s.summary)).toEqual(["Drowned Bell summary", "Low Water summary"]);
    expect(readFileSync(join(bed.project.root, "lorebook", "digest.md"), "utf8")).toContain(
      "Drowned Bell summary",
    );
    const writerPrompt = bed.harness.store.activePath("4").find((e) => e.kind === "user");
    expect(JSON.stringify(writerPrompt?.data)).toContain("## 1. Chapter 1 — The Drowned Bell");
  });

  it("book-digest: an empty book fails before any agent is created", async () => {
    bed = await workflowBed({ turns: [{ text: "never called" }] });
    writeFileSync(join(bed.project.root, "empty-book.md"), "Just a note, no chapters.\n");
    const run = await bed.run("book-digest", { source: "empty-book.md" });
    expect(run.status).toBe("failed");
    expect(run.error?.message).toContain("has no chapters");
    expect(bed.store.participants(run.id)).toEqual([]);
    expect(bed.harness.store.listSessions().map((s) => s.id)).toEqual([bed.callerId]);
  });

  it("continuity-check: each chapter against its brief or the world state, contradictions kept only with real quotes, nothing written", async () => {
    bed = await workflowBed({
      sessions: {
        "2": [
          {
            ...reportTurn({
              contradictions: [
                {
                  quote: "the third bell rang",
                  contradicts: "world",
                  fact: "the bell is silent",
                  explanation: "x",
                  severity: "major",
                },
                {
                  quote: "a quote the chapter never had",
                  contradicts: "plot",
                  fact: "y",
                  explanation: "z",
                  severity: "minor",
                },
              ],
            }),
            expect: { lastUser: "Chapter 1" },
          },
        ],
        "3": [{ ...reportTurn({ contradictions: [] }), expect: { lastUser: "World state (latest)" } }],
      },
    });
    const before = bed.harness.store.listSessions().length;
    const run = await bed.run("continuity-check", {
      chapters: [
        { path: "manuscript/01-the-drowned-bell/index.md", chapterId: 1 },
        { path: "manuscript/02-low-water/index.md" },
      ],
    });
    expect(run.error).toBeNull();
    const result = run.result as {
      chapters: Array<{ contradictions: Array<{ quote: string }>; dropped: number }>;
      total: number;
      verdict: string;
    };
    expect(result.chapters[0].contradictions.map((c) => c.quote)).toEqual(["the third bell rang"]);
    expect(result.chapters[0].dropped).toBe(1);
    expect(result).toMatchObject({ total: 1, verdict: "has-major" });
    expect(bed.harness.store.listSessions().length).toBe(before + 2);
    const kinds = bed.store.journal(run.id).map((e) => e.kind);
    expect(kinds).toContain("plot.brief");
    expect(kinds).toContain("world.query");
  });

  it("a caller in discuss mode gets read-only participants: the writer's write stops for approval and the run fails saying so, nothing written", async () => {
    const path = "manuscript/03-the-bell-road/index.md";
    bed = await workflowBed(
      { sessions: { "2": [{ toolCalls: [{ name: "write", input: { path, content: "# Draft\n" } }] }] } },
      { mode: "discuss" },
    );
    const run = await bed.run("chapter-write-review-revise", { chapterPath: path, brief: "b" });
    expect(run.status).toBe("failed");
    expect(run.error?.code).toBe("conflict");
    expect(run.error?.message).toContain("stopped for the user");
    expect(existsSync(join(bed.project.root, path))).toBe(false);
    expect(bed.harness.pending("2")?.tool).toBe("write");
  });

  it("a model named inside the script is checked against the agent-visible list at the host boundary", async () => {
    bed = await workflowBed({ sessions: { "2": [{ text: "never" }] } });
    const run = await bed.runs.start({
      target: {
        script: `export default async function run(wf) {
          const a = await wf.agents.create("adhoc", { initial: { systemPrompt: "x" }, model: "someone/else" });
          try { await a.invoke({ message: "hi" }); } catch (e) { return e.code + ": " + e.message; }
        }`,
      },
      callerSessionId: bed.callerId,
    });
    const out = await bed.runs.drive(run.id);
    expect(out.result).toContain("not_allowed");
    expect(out.result).toContain("someone/else");
    expect(bed.model.remaining).toBe(1);
  });

  it("session handles: transcript shows the agent's messages, append adds a note the next invocation sees", async () => {
    bed = await workflowBed({
      sessions: {
        "2": [{ text: "First answer." }, { text: "Second answer.", expect: { lastUser: "Again, please." } }],
      },
    });
    const run = await bed.runs.start({
      target: {
        script: `export default async function run(wf) {
          const a = await wf.agents.create("adhoc", { initial: { systemPrompt: "x" }, title: "helper" });
          await a.invoke({ message: "Hello." });
          const before = await a.transcript({ tail: 5 });
          await a.append({ text: "A note from the workflow." });
          const second = await a.invoke({ message: "Again, please." });
          return { before, second: second.message, after: await a.transcript({ tail: 3 }) };
        }`,
      },
      callerSessionId: bed.callerId,
    });
    const out = await bed.runs.drive(run.id);
    expect(out.error).toBeNull();
    expect(out.result).toEqual({
      before: [
        { role: "user", text: "Hello." },
        { role: "assistant", text: "First answer." },
      ],
      second: "Second answer.",
      after: [
        { role: "user", text: "A note from the workflow." },
        { role: "user", text: "Again, please." },
        { role: "assistant", text: "Second answer." },
      ],
    });
    // A kept (not ephemeral) participant stays live after the run.
    expect(bed.harness.store.session("2").status).not.toBe("archived");
  });
});
