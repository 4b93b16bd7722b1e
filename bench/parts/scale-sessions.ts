// Growth of session costs with the session's length: the agent screen's first page and one
// transcript page over HTTP, `nbook run --session` resuming, `nbook serve` under 20 readers of the
// longest session, and compaction of a long backlog on a provider that enforces its window.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { encode } from "gpt-tokenizer";
import { z } from "zod";
import { ensureBuilt } from "../../scripts/build.mjs";
import { summarize } from "../../src/harness/compaction.js";
import { type Entry, type EntryInput, SessionStore } from "../../src/harness/store/index.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { type BenchOptions, type BenchSuite, intOption, medianMs } from "../lib.js";
import { startServe } from "./serve-process.js";

type Report = Parameters<BenchSuite["run"]>[0];

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/**
 * The built CLI without bin/nbook's up-to-date check (which hashes src/ on every start): the
 * figures are the command's own. The suite builds dist/ first when it is stale.
 */
const CLI = `import { main } from ${JSON.stringify(new URL("../../dist/cli/main.js", import.meta.url).href)}; await main(process.argv);`;
const profile = { key: "leader.default", initial: z.object({}) };
const CLIENTS = 20;

/** One step of a realistic session: a message with a read call, its result, the user's reply. */
function step(i: number): EntryInput[] {
  return [
    {
      kind: "assistant",
      data: {
        text: `Part ${i}: I will read the chapter before revising it; the tide scene needs a firmer opening and the bell must ring twice.`,
        toolCalls: [{ id: `c${i}`, key: "read", input: { path: `manuscript/ch${i % 40}/index.md` } }],
      },
    },
    {
      kind: "tool_result",
      data: {
        callId: `c${i}`,
        key: "read",
        ok: true,
        text: "The fog had burned off by noon, and the bells of the drowned town rang under the marsh. ".repeat(
          4,
        ),
      },
    },
    { kind: "user", data: { text: `Good. Keep going with part ${i + 1}, and keep Mira's voice dry.` } },
  ];
}

/** A session of about `n` entries, committed 300 at a time, ending in a compaction (as resumed sessions do). */
function buildSession(store: SessionStore, project: string, n: number): string {
  const s = store.createSession({ profile, project, title: `${n} entries` });
  let batch: EntryInput[] = [];
  for (let i = 0; i * 3 < n; i++) {
    batch.push(...step(i));
    if (batch.length >= 300) {
      store.commitStep(s.id, batch);
      batch = [];
    }
  }
  if (batch.length) store.commitStep(s.id, batch);
  const kept = store.page(s.id, { limit: 6 }).entries[0].id;
  store.append(s.id, {
    kind: "compaction",
    data: { summary: "Earlier: parts were drafted and revised.", firstKeptEntryId: kept },
  });
  return s.id;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)];

/** Resident memory of a process now, in MiB (Linux). */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : 0;
}

/** GET as a keep-alive client; resolves to the parsed JSON body. */
function getter(origin: string, cookie: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return (path: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const req = http.request(`${origin}${path}`, { agent, headers: { cookie } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode}`));
          else resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        });
      });
      req.on("error", reject);
      req.end();
    });
}

/** Report a figure at each size, then its growth: the largest size's figure over the smallest's. */
function curve(
  report: Report,
  name: string,
  unit: "ms" | "MiB",
  sizes: number[],
  values: number[],
  target?: string,
) {
  sizes.forEach((n, i) => {
    const last = i === sizes.length - 1;
    report({ name: `${name} @${n}`, unit, value: values[i], ...(target && last ? { target } : {}) });
  });
  report({
    name: `${name} growth ${sizes[sizes.length - 1]}/${sizes[0]}`,
    unit: "x",
    value: values[values.length - 1] / Math.max(values[0], 1e-9),
  });
}

/** Wall time and peak RSS of one `nbook run --session` resuming a session, from /usr/bin/time. */
function resumeOnce(
  cli: string,
  ws: string,
  script: string,
  session: string,
): { ms: number; cpuMs: number; mib: number } {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(
    "/usr/bin/time",
    [
      "-f",
      "maxrss=%M cpu=%U+%S",
      process.execPath,
      cli,
      "run",
      "go on",
      "--session",
      session,
      "--script",
      script,
      "--workspace",
      ws,
      "--json",
    ],
    { encoding: "utf8" },
  );
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`nbook run --session ${session} failed: ${r.stderr}${r.stdout}`);
  const m = /maxrss=(\d+) cpu=([\d.]+)\+([\d.]+)/.exec(r.stderr);
  if (!m) throw new Error(`no figures from /usr/bin/time: ${r.stderr}`);
  return { ms, cpuMs: (Number(m[2]) + Number(m[3])) * 1000, mib: Number(m[1]) / 1024 };
}

/** The text of a request as a provider receives it. */
function requestText(o: LanguageModelV3CallOptions): string {
  return o.prompt
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : m.content.map((p) => ("text" in p && typeof p.text === "string" ? p.text : "")).join(""),
    )
    .join("\n");
}

/** Compaction of a long backlog on a 128k-window provider that refuses any request over its window. */
async function compactionFigures(report: Report, store: SessionStore, session: string): Promise<void> {
  const window = { contextWindow: 128_000, maxOutputTokens: 4096 };
  let requests = 0;
  let largest = 0;
  let providerMs = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async (o) => {
      const t0 = process.hrtime.bigint();
      const tokens = encode(requestText(o)).length;
      providerMs += Number(process.hrtime.bigint() - t0) / 1e6;
      if (tokens + (o.maxOutputTokens ?? 0) > window.contextWindow) {
        throw new Error(`request of ${tokens} tokens is over the ${window.contextWindow}-token window`);
      }
      requests++;
      largest = Math.max(largest, tokens);
      return {
        content: [{ type: "text", text: `Summary of a part (${tokens} tokens in): drafts and revisions.` }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: { total: tokens, noCache: tokens, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 12, text: 12, reasoning: undefined },
        },
        warnings: [],
      };
    },
  });
  const entries: Entry[] = store.activePath(session);
  const t0 = process.hrtime.bigint();
  await summarize({
    model,
    system: "You summarise an agent conversation.",
    previousSummary: null,
    entries,
    window,
    maxRetries: 0,
  });
  const total = Number(process.hrtime.bigint() - t0) / 1e6;
  report({ name: `compaction of ${entries.length} entries: requests`, unit: "chunks", value: requests });
  report({
    name: "compaction: largest request",
    unit: "x",
    value: (largest + window.maxOutputTokens) / window.contextWindow,
    target: "< 1 of the window (asserted: the provider refuses more)",
  });
  report({ name: "compaction total (without provider)", unit: "ms", value: total - providerMs });
}

/** Every session figure of the `scale` suite. */
export async function sessionScale(report: Report, options?: BenchOptions): Promise<void> {
  const sizes = (options?.get("sessions") ?? "1000,10000,50000").split(",").map(Number);
  const seconds = intOption(options, "seconds", 30);
  const dir = mkdtempSync(join(tmpdir(), "nb-bench-scale-sessions-"));
  await ensureBuilt(ROOT);
  const cli = join(dir, "nbook.mjs");
  writeFileSync(cli, CLI);
  const ws = Workspace.init(join(dir, "ws"));
  ws.createProject("bench");
  const store = SessionStore.forWorkspace(ws);
  const empty = buildSession(store, "bench", 3);
  const ids = sizes.map((n) => buildSession(store, "bench", n));
  const calls = Math.max(...[empty, ...ids].map((id) => store.modelCalls(id)));
  // One script for every resume, long enough for the longest session: each parses the same file.
  const script = join(dir, "script.json");
  writeFileSync(
    script,
    JSON.stringify({ turns: Array.from({ length: calls + 200 }, () => ({ text: "ok" })) }),
  );

  const server = await startServe(cli, ws.root);
  try {
    const get = getter(server.origin, server.cookie);
    const firstPage: number[] = [];
    const onePage: number[] = [];
    for (const id of ids) {
      // What the agent screen asks for when it opens (in parallel, as the browser does).
      firstPage.push(
        await medianMs(
          () =>
            Promise.all([
              get("/api/projects/bench/sessions?limit=100"),
              get("/api/profiles?project=bench"),
              get("/api/models?project=bench"),
              get(`/api/sessions/${id}/transcript?limit=100`),
            ]),
          { iterations: 20, warmup: 3 },
        ),
      );
      // A page from the middle of the branch (a session's entries have consecutive ids here).
      const leaf = Number(store.session(id).leafId);
      const middle = leaf - Math.floor(store.session(id).entryCount / 2);
      onePage.push(
        await medianMs(() => get(`/api/sessions/${id}/transcript?before=${middle}&limit=100`), {
          iterations: 50,
        }),
      );
    }
    curve(report, "agent screen first page (API)", "ms", sizes, firstPage, "< 300 ms");
    curve(report, "transcript page (100 entries)", "ms", sizes, onePage, "< 20 ms");

    // 20 readers of the longest session, each paging back from the leaf and starting again.
    const longest = ids[ids.length - 1];
    const latencies: number[] = [];
    let peak = rssMiB(server.child.pid as number);
    const before = peak;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB(server.child.pid as number));
    }, 100);
    const until = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        const read = getter(server.origin, server.cookie);
        let cursor: string | null = null;
        while (Date.now() < until) {
          const t0 = process.hrtime.bigint();
          const page = await read(
            `/api/sessions/${longest}/transcript?limit=100${cursor ? `&before=${cursor}` : ""}`,
          );
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
          cursor = (page.older as string | null) ?? null;
        }
      }),
    );
    clearInterval(sampler);
    report({ name: `serve RSS before ${CLIENTS} readers`, unit: "MiB", value: before });
    report({
      name: `serve RSS peak, ${CLIENTS} readers ${seconds}s @${sizes[sizes.length - 1]}`,
      unit: "MiB",
      value: peak,
      target: "< 300 MiB",
    });
    report({ name: "serve page p50", unit: "ms", value: median(latencies) });
    report({ name: "serve page p99", unit: "ms", value: pct(latencies, 0.99), target: "< 100 ms" });
    report({ name: "serve pages/s", unit: "ops/s", value: latencies.length / seconds });
  } finally {
    server.child.kill("SIGTERM");
  }

  // Resuming: wall time, CPU time and peak memory of `nbook run --session`, and how much more each
  // costs than resuming a 3-entry session. The two run in pairs (eight per size, each first in
  // turn) and the figure over it is the median of the pairs' differences, so that the
  // machine's drift between runs of a 1.5 s process does not pass for the history's cost.
  type Run = ReturnType<typeof resumeOnce>;
  const keys = ["ms", "cpuMs", "mib"] as const;
  const medianOf = (runs: Run[]) =>
    Object.fromEntries(keys.map((k) => [k, median(runs.map((r) => r[k]))])) as Run;
  const baseRuns: Run[] = [];
  const resumed = ids.map((id) => {
    const runs: Run[] = [];
    const over: Run[] = [];
    for (let i = 0; i < 8; i++) {
      // Either goes first in turn: the second of two runs finds the caches the first warmed.
      const first = resumeOnce(cli, ws.root, script, i % 2 ? id : empty);
      const second = resumeOnce(cli, ws.root, script, i % 2 ? empty : id);
      const [a, b] = i % 2 ? [second, first] : [first, second];
      baseRuns.push(a);
      runs.push(b);
      over.push({ ms: b.ms - a.ms, cpuMs: b.cpuMs - a.cpuMs, mib: b.mib - a.mib });
    }
    return { ...medianOf(runs), over: medianOf(over) };
  });
  const base = medianOf(baseRuns);
  report({ name: "resume run --session, 3 entries (wall)", unit: "ms", value: base.ms });
  report({ name: "resume run --session, 3 entries (CPU)", unit: "ms", value: base.cpuMs });
  report({ name: "resume RSS, 3 entries", unit: "MiB", value: base.mib });
  const at = (k: "ms" | "cpuMs" | "mib") => resumed.map((r) => r[k]);
  curve(report, "resume wall", "ms", sizes, at("ms"));
  curve(report, "resume CPU", "ms", sizes, at("cpuMs"));
  curve(report, "resume RSS", "MiB", sizes, at("mib"));
  // Below the noise of a shared machine, a figure over the 3-entry session may be negative.
  const { over } = resumed[resumed.length - 1]!;
  const n = sizes[sizes.length - 1];
  report({ name: `resume wall over empty @${n}`, unit: "ms", value: over.ms, target: "< 150 ms" });
  report({ name: `resume CPU over empty @${n}`, unit: "ms", value: over.cpuMs, target: "< 150 ms" });
  report({ name: `resume RSS over empty @${n}`, unit: "MiB", value: over.mib, target: "< 100 MiB" });

  await compactionFigures(report, store, ids[ids.length - 1]);
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
