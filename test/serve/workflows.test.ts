import { afterEach, describe, expect, it } from "vitest";
import { harnessToolPort } from "../../src/runtime/workflow-tools.js";
import { DEFAULT_WORKFLOW_SETTINGS } from "../../src/workflows/config.js";
import { runsFor } from "../../src/workflows/runs-for.js";
import type { NewRun } from "../../src/workflows/store/index.js";
import { type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
afterEach(async () => {
  await fx.close();
});

const run = (over: Partial<NewRun>): NewRun => ({
  workflowKey: "brainstorm",
  title: "Brainstorm",
  file: "builtin/brainstorm/workflow.js",
  source: "export default async function run() {}",
  phases: [],
  args: {},
  project: "novel",
  callerSessionId: null,
  model: null,
  mode: "normal",
  budget: DEFAULT_WORKFLOW_SETTINGS.budget,
  concurrency: DEFAULT_WORKFLOW_SETTINGS.concurrency,
  ...over,
});

type Run = { id: string; status: string; project: string | null; source?: string };

describe("workflow runs over the API (read-only)", () => {
  it("lists the latest runs without their scripts, by project and status, and shows one with its asks and timeline", async () => {
    fx = await serveFixture();
    const store = fx.hub.workflowStore();
    const a = store.createRun(run({ title: "Novel run" }));
    const b = store.createRun(run({ title: "Other run", project: "other" }));
    store.update(b.id, { status: "waiting" });

    const all = (await (await fx.api("GET", "/api/workflow-runs")).json()) as { runs: Run[] };
    expect(all.runs.map((r) => r.id).sort()).toEqual([a.id, b.id].sort());
    expect(all.runs.every((r) => r.source === undefined)).toBe(true);
    const novel = (await (await fx.api("GET", "/api/workflow-runs?project=novel")).json()) as { runs: Run[] };
    expect(novel.runs.map((r) => r.id)).toEqual([a.id]);
    const waiting = (await (await fx.api("GET", "/api/workflow-runs?status=waiting")).json()) as {
      runs: Run[];
    };
    expect(waiting.runs.map((r) => r.id)).toEqual([b.id]);

    const view = (await (await fx.api("GET", `/api/workflow-runs/${a.id}`)).json()) as {
      run: Run & { title: string };
      pendingAsks: unknown[];
      participants: unknown[];
      timeline: unknown[];
    };
    expect(view.run).toMatchObject({ id: a.id, title: "Novel run", status: "running" });
    expect(view.run.source).toBeUndefined();
    expect(view).toMatchObject({ pendingAsks: [], participants: [], timeline: [] });
  });

  it("an unknown run is not_found; a malformed id or status is invalid_input", async () => {
    fx = await serveFixture();
    expect((await fx.api("GET", "/api/workflow-runs/run_000000000000")).status).toBe(404);
    expect((await fx.api("GET", "/api/workflow-runs/run_x")).status).toBe(400);
    expect((await fx.api("GET", "/api/workflow-runs?status=sleeping")).status).toBe(400);
  });
});

const ASKING = `export const title = "Ask demo";
export default async function run(wf) {
  const ok = await wf.ask({ kind: "approve", title: "Proceed?", key: "go" });
  return { ok };
}
`;

describe("answering and cancelling workflow runs over the API", () => {
  /** A user's inline run of ASKING, driven until it waits on its question. */
  async function waitingRun(): Promise<string> {
    const harness = fx.hub.harness("novel");
    const project = fx.hub.workspace.project("novel");
    const runs = runsFor({
      harness,
      workspace: fx.hub.workspace,
      project,
      store: fx.hub.workflowStore(),
      tools: harnessToolPort(harness, fx.hub.workspace, project),
      run: null,
    });
    const started = await runs.start({ target: { script: ASKING } });
    const waiting = await runs.drive(started.id);
    expect(waiting.status).toBe("waiting");
    return started.id;
  }

  it("refuses bad answers writing nothing, then drives the answered run to its end in the server", async () => {
    fx = await serveFixture();
    const id = await waitingRun();
    const bad = await fx.api("POST", `/api/workflow-runs/${id}/answer`, { answers: { go: "yes", extra: 1 } });
    expect(bad.status).toBe(400);
    expect(fx.hub.workflowStore().run(id).status).toBe("waiting");
    expect((await fx.api("POST", `/api/workflow-runs/${id}/answer`, {})).status).toBe(400);

    const good = await fx.api("POST", `/api/workflow-runs/${id}/answer`, { answers: { go: true } });
    expect(good.status).toBe(202);
    const body = (await good.json()) as { run: { status: string; source?: string } };
    expect(body.run.status).toBe("running");
    expect(body.run.source).toBeUndefined();
    await fx.hub.idle();
    const done = fx.hub.workflowStore().run(id);
    expect(done.status).toBe("completed");
    expect(done.result).toEqual({ ok: true });
    // A run that no longer waits cannot be answered again.
    expect((await fx.api("POST", `/api/workflow-runs/${id}/answer`, { answers: { go: true } })).status).toBe(
      409,
    );
  });

  it("cancels a waiting run; an unknown run is 404", async () => {
    fx = await serveFixture();
    const id = await waitingRun();
    const r = await fx.api("POST", `/api/workflow-runs/${id}/cancel`);
    expect(r.status).toBe(200);
    expect(((await r.json()) as { run: { status: string } }).run.status).toBe("cancelled");
    expect(fx.hub.workflowStore().asks(id)).toEqual([]);
    expect((await fx.api("POST", "/api/workflow-runs/run_000000000000/cancel")).status).toBe(404);
  });
});
