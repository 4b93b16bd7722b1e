import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_WORKFLOW_SETTINGS } from "../../src/workflows/config.js";
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
