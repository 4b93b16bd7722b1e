import { afterAll, afterEach, describe, expect, it } from "vitest";
import { closeWorkflowSandbox } from "../../src/workflows/sandbox/index.js";
import { reportTurn, type WorkflowBed, workflowBed } from "./fixtures.js";

let bed: WorkflowBed | null = null;
afterEach(async () => {
  await bed?.close();
  bed = null;
});
afterAll(() => closeWorkflowSandbox());

const ideas = { ideas: [{ idea: "a bell that rings backwards", value: "eerie", risk: "gimmick" }] };
const ranking = {
  ranking: [{ id: "1.1", score: 8, why: "memorable" }],
  recommendation: "Use the backwards bell.",
};

describe("run_workflow and list_workflows through the harness", () => {
  it("needs approval in normal mode with a preview of workflow, args and budget, then runs as a job whose result flows back", async () => {
    bed = await workflowBed({
      sessions: {
        "1": [
          {
            toolCalls: [
              { name: "list_workflows", input: {} },
              {
                name: "run_workflow",
                input: { workflowKey: "brainstorm", args: { topic: "the bell", angles: ["sound"] } },
              },
            ],
          },
          { text: "The brainstorm runs in the background." },
          { text: "The brainstorm recommends the backwards bell.", expect: { lastUser: "backwards bell" } },
        ],
        "2": [reportTurn(ideas)],
        "3": [reportTurn(ranking)],
      },
    });
    const h = bed.harness;
    const first = await h.invoke(bed.callerId, { mode: "prompt", message: "Brainstorm the bell" });
    expect(first.status).toBe("waiting");
    expect(first.pending?.tool).toBe("run_workflow");
    expect(first.pending?.preview).toContain("Run workflow brainstorm (Brainstorm");
    expect(first.pending?.preview).toContain('"topic": "the bell"');
    expect(first.pending?.preview).toMatch(/Budget: at most \d+ agent invocations and \d+ tokens/);
    // Nothing ran before the approval.
    expect(bed.store.listRuns()).toEqual([]);
    const listResult = h.store
      .activePath(bed.callerId)
      .find((e) => e.kind === "tool_result" && e.data.key === "list_workflows");
    expect(JSON.stringify(listResult?.data)).toContain("brainstorm: Brainstorm");

    const second = await h.settle(bed.callerId, first.pending!.approvalId, { approved: true });
    expect(second.status).toBe("completed");
    const started = h.store
      .activePath(bed.callerId)
      .find((e) => e.kind === "tool_result" && e.data.key === "run_workflow");
    expect(JSON.stringify(started?.data)).toContain("do not poll");
    await h.jobs.whenIdle();
    await h.flowBackRun(bed.callerId);
    const [run] = bed.store.listRuns();
    expect(run.status).toBe("completed");
    expect(run.callerSessionId).toBe(bed.callerId);
    const job = h.jobs.list("user")[0];
    expect(job).toMatchObject({
      kind: "workflow",
      status: "completed",
      ref: { runId: run.id, workflowKey: "brainstorm" },
    });
    const last = h.store.activePath(bed.callerId).at(-1);
    expect(last?.kind).toBe("run_end");
  });

  it("wait:true runs in the foreground; one that asks the user is cancelled and the agent is told to use background", async () => {
    const asking = `export default async function run(wf) { return wf.ask({ kind: "approve", title: "Go on?" }); }`;
    const quick = `export default async function run(wf, args) { return { doubled: args.n * 2, at: wf.now() > 0 }; }`;
    bed = await workflowBed({
      sessions: {
        "1": [
          { toolCalls: [{ name: "run_workflow", input: { script: quick, args: { n: 21 }, wait: true } }] },
          { toolCalls: [{ name: "run_workflow", input: { script: asking, wait: true } }] },
          { text: "Understood." },
        ],
      },
    });
    const h = bed.harness;
    const first = await h.invoke(bed.callerId, { mode: "prompt", message: "Go" });
    expect(first.pending?.preview).toContain("```js");
    expect(first.pending?.preview).toContain("args.n * 2");
    const second = await h.settle(bed.callerId, first.pending!.approvalId, { approved: true });
    expect(second.status).toBe("waiting");
    const quickResult = h.store
      .activePath(bed.callerId)
      .filter((e) => e.kind === "tool_result")
      .at(-1);
    expect(JSON.stringify(quickResult?.data)).toContain('\\"doubled\\": 42');
    const third = await h.settle(bed.callerId, second.pending!.approvalId, { approved: true });
    expect(third.status).toBe("completed");
    const refused = h.store
      .activePath(bed.callerId)
      .filter((e) => e.kind === "tool_result")
      .at(-1);
    expect(refused?.data).toMatchObject({ key: "run_workflow", ok: false });
    expect(JSON.stringify(refused?.data)).toContain("without wait");
    const runs = bed.store.listRuns();
    expect(runs.map((r) => r.status).sort()).toEqual(["cancelled", "completed"]);
    expect(h.jobs.list("user")).toEqual([]);
  });

  it("a background run waiting for answers survives its process closing, while cancel_job cancels one", async () => {
    const asking = `export default async function run(wf) { return wf.ask({ kind: "text", title: "Which bell?", key: "bell" }); }`;
    bed = await workflowBed({
      sessions: {
        "1": [
          { toolCalls: [{ name: "run_workflow", input: { script: asking } }] },
          { text: "Started." },
          { toolCalls: [{ name: "run_workflow", input: { script: asking } }] },
          { text: "Started again." },
        ],
      },
    });
    const h = bed.harness;
    const first = await h.invoke(bed.callerId, { mode: "prompt", message: "Go" });
    await h.settle(bed.callerId, first.pending!.approvalId, { approved: true });
    const waitFor = async (check: () => boolean) => {
      while (!check()) await new Promise((r) => setTimeout(r, 20));
    };
    await waitFor(() => bed!.store.listRuns()[0]?.status === "waiting");
    const [kept] = bed.store.listRuns();
    await waitFor(() => h.jobs.list("user")[0]?.status === "waiting");

    const second = await h.invoke(bed.callerId, { mode: "prompt", message: "Again" });
    await h.settle(bed.callerId, second.pending!.approvalId, { approved: true });
    await waitFor(() => bed!.store.listRuns().filter((r) => r.status === "waiting").length === 2);
    const other = bed.store.listRuns().find((r) => r.id !== kept.id)!;
    const otherJob = h.jobs.list("user").find((j) => (j.ref as { runId: string }).runId === other.id)!;
    await waitFor(() => h.jobs.get(otherJob.id, "user").status === "waiting");
    const cancelled = await h.jobs.cancel(otherJob.id, "user");
    expect(cancelled.status).toBe("cancelled");
    await waitFor(() => bed!.store.run(other.id).status === "cancelled");

    // The process goes away: the job is interrupted, the run still waits for its answer.
    h.close();
    await new Promise((r) => setTimeout(r, 700));
    expect(bed.store.run(kept.id).status).toBe("waiting");
    expect(bed.store.asks(kept.id).map((a) => a.key)).toEqual(["bell"]);
  });
});
