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
    bed = workflowBed({
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

  it("brainstorm: an agent whose data does not match its output schema fails the run with pointers", async () => {
    bed = workflowBed({ sessions: { "2": [reportTurn({ ideas: [{ idea: "x" }] })] } });
    const run = await bed.run("brainstorm", { topic: "t", angles: ["voice"] });
    expect(run.status).toBe("failed");
    expect(run.error?.message).toContain("/data/ideas/0/value");
  });
});
