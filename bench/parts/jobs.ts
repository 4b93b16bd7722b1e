import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { agentCollaboration } from "../../src/collab/plugin.js";
import { EventBus } from "../../src/harness/events.js";
import { Harness } from "../../src/harness/loop.js";
import { SessionStore } from "../../src/harness/store/index.js";
import { JobRunner } from "../../src/jobs/index.js";
import { scriptedModel } from "../../src/models/index.js";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { loadToolRegistry } from "../../src/tools/groups.js";
import { Workspace } from "../../src/workspace/workspace.js";
import type { BenchSuite } from "../lib.js";

type Report = Parameters<BenchSuite["run"]>[0];

const now = () => Number(process.hrtime.bigint()) / 1e6;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * 200 background jobs (10 sessions × 20, the work itself instant) from start to their flow-back in
 * the owner's history: the job rows, the caps (4 at once, the rest queued), the terminal commits
 * with their follow-ups, and one flow-back turn per job on a model that answers at once.
 */
async function spawnAndDeliver(report: Report): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "nb-bench-jobs-"));
  const workspace = Workspace.init(dir);
  workspace.createProject("novel", {});
  // A small profile of its own: the figure is about jobs, not about loading every tool group.
  writeFileSync(
    join(workspace.nbookDir, "agent", "profiles", "bench.yaml"),
    "key: bench\nname: Bench\ndescription: Owns the benchmark's jobs.\ntools: [read, list_jobs]\nprompt: You note job results.\n",
  );
  const store = SessionStore.forWorkspace(workspace);
  const registry = await loadToolRegistry(["read", "list_jobs"]);
  const model = scriptedModel(Array.from({ length: 400 }, () => ({ text: "Noted." })));
  const harness = new Harness({
    collaboration: agentCollaboration(),
    workspace,
    store,
    registry,
    catalog: new ProfileCatalog(registry, workspace),
    resolveModel: (ref) => ({ ref: ref ?? "scripted/bench", model, contextWindow: 128_000 }),
    bus: new EventBus(),
  });
  try {
    const sessions = Array.from(
      { length: 10 },
      () => harness.createSession({ profileKey: "bench", project: "novel" }).id,
    );
    const total = 200;
    let delivered = 0;
    const allDelivered = new Promise<void>((resolve) => {
      harness.bus.on((e) => {
        if (e.type === "run_end" && ++delivered === total) resolve();
      });
    });
    let ended = 0;
    let allEndedAt = 0;
    harness.jobs.on((e) => {
      if (e.type === "job_ended" && ++ended === total) allEndedAt = now();
    });
    const t0 = now();
    for (let i = 0; i < total; i++) {
      harness.jobs.start({
        kind: "bash",
        title: `bench ${i}`,
        ownerSessionId: sessions[i % sessions.length],
        run: async () => ({ text: `result ${i}` }),
      });
    }
    await allDelivered;
    const ms = now() - t0;
    for (const s of sessions)
      if (store.jobs.undelivered(s).length) throw new Error("a flow-back was not delivered");
    // Ended = committed with the follow-up queued; delivered = the owner's flow-back turn has run.
    report({
      name: "jobs_200_spawned_ended_per_s",
      unit: "ops/s",
      value: total / ((allEndedAt - t0) / 1000),
    });
    report({ name: "jobs_200_spawned_delivered_per_s", unit: "ops/s", value: total / (ms / 1000) });
  } finally {
    harness.close();
    workspace.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Reopen a store holding 10,000 finished jobs and list the latest 50, as `nbook jobs list` and a
 * new harness do (open, recover dead runners' jobs, list); against the original's store, one JSON
 * file per job, all read and sorted to find the latest.
 */
async function reopenAndList(report: Report): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "nb-bench-jobs-"));
  const file = join(dir, "agent.sqlite");
  const files = join(dir, "jobs");
  mkdirSync(files);
  const n = 10_000;
  try {
    const store = SessionStore.open(file);
    const owner = store.createSession({ profile: { key: "leader.default", initial: z.object({}) } }).id;
    for (let i = 0; i < n; i++) {
      const job = store.jobs.create({
        kind: "bash",
        title: `bash: job ${i}`,
        ownerSessionId: owner,
        status: "running",
        runner: "bench:1:1",
      });
      const ended = store.jobs.end(
        job.id,
        { status: "completed", result: { text: `output of job ${i}\n`.repeat(20) } },
        (j) => `<system-reminder>\nBackground job ${j.id} completed.\n</system-reminder>`,
      );
      writeFileSync(join(files, `${job.id}.json`), JSON.stringify(ended));
    }
    store.close();

    const ours: number[] = [];
    for (let i = 0; i < 21; i++) {
      const t0 = now();
      const s = SessionStore.open(file);
      new JobRunner({ table: s.jobs }).shutdown();
      const latest = s.jobs.list({ limit: 50 });
      ours.push(now() - t0);
      if (latest.length !== 50) throw new Error("expected 50 jobs");
      s.close();
    }
    const naive: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = now();
      const all = readdirSync(files).map(
        (f) => JSON.parse(readFileSync(join(files, f), "utf8")) as { createdAt: string },
      );
      all.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
      if (all.slice(0, 50).length !== 50) throw new Error("expected 50 jobs");
      naive.push(now() - t0);
    }
    const value = median(ours);
    const baseline = median(naive);
    report({
      name: "reopen_10k_jobs_list_latest_50",
      unit: "ms",
      value,
      baseline,
      ratio: baseline / value,
      target: "< 20 ms",
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The background-job figures of the collab suite. */
export async function jobFigures(report: Report): Promise<void> {
  await spawnAndDeliver(report);
  await reopenAndList(report);
}
