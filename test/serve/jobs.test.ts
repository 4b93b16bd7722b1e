import { afterEach, describe, expect, it } from "vitest";
import { readEvents, type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
afterEach(async () => {
  await fx.close();
});

type Job = { id: string; status: string; title: string; result?: { text: string } | null };

describe("jobs over the API", () => {
  it("lists, shows and cancels a background job of this process; the workspace stream announces it", async () => {
    fx = await fx_();
    const events = await fx.api("GET", "/api/events");
    const runner = fx.hub.harness("novel").jobs;
    const started = runner.start({
      kind: "bash",
      title: "sleep until cancelled",
      ownerSessionId: null,
      run: (job) =>
        new Promise((_, reject) => job.signal.addEventListener("abort", () => reject(new Error("stopped")))),
    });
    const done = runner.start({
      kind: "bash",
      title: "quick",
      ownerSessionId: null,
      run: async () => ({ text: "all done" }),
    });
    while (fx.hub.store.jobs.get(done.id).status !== "completed") await new Promise((r) => setTimeout(r, 10));

    const list = (await (await fx.api("GET", "/api/jobs")).json()) as { jobs: Job[] };
    expect(list.jobs.map((j) => [j.id, j.status])).toEqual(
      expect.arrayContaining([
        [started.id, "running"],
        [done.id, "completed"],
      ]),
    );
    const running = (await (await fx.api("GET", "/api/jobs?status=running")).json()) as { jobs: Job[] };
    expect(running.jobs.map((j) => j.id)).toEqual([started.id]);
    const shown = (await (await fx.api("GET", `/api/jobs/${done.id}`)).json()) as { job: Job };
    expect(shown.job.result?.text).toBe("all done");

    const cancelled = await fx.api("POST", `/api/jobs/${started.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as { job: Job }).job.status).toBe("cancelled");
    const again = (await (await fx.api("POST", `/api/jobs/${started.id}/cancel`)).json()) as { job: Job };
    expect(again.job.status).toBe("cancelled");

    const seen = await readEvents(events.body as ReadableStream<Uint8Array>, (e) => e.length >= 4);
    expect(seen.map((e) => [e.event, (e.data as { job: Job }).job.title])).toEqual([
      ["job_started", "sleep until cancelled"],
      ["job_started", "quick"],
      ["job_ended", "quick"],
      ["job_ended", "sleep until cancelled"],
    ]);
  });

  it("an unknown job is not_found; a malformed id or filter is invalid_input", async () => {
    fx = await fx_();
    expect((await fx.api("GET", "/api/jobs/job_00000000")).status).toBe(404);
    expect((await fx.api("POST", "/api/jobs/job_00000000/cancel")).status).toBe(404);
    expect((await fx.api("GET", "/api/jobs/../etc")).status).toBe(404);
    expect((await fx.api("GET", "/api/jobs/nojob")).status).toBe(400);
    expect((await fx.api("GET", "/api/jobs?status=sleeping")).status).toBe(400);
  });
});

function fx_(): Promise<ServeFixture> {
  return serveFixture({ script: [{ text: "unused" }] });
}
