import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { type EntryInput, SessionStore } from "../../src/harness/store/index.js";
import { type BenchSuite, medianMs } from "../lib.js";
import { loopFigures } from "../parts/harness-loop.js";

const profile = { key: "leader.default", initial: z.object({}) };

/** The entry a benchmark appends: a realistic short assistant message. */
function entry(i: number): EntryInput {
  return i % 2 === 0
    ? { kind: "user", data: { text: `Please continue the chapter, part ${i}. Keep the tone.` } }
    : {
        kind: "assistant",
        data: { text: `Here is part ${i}: the rain kept falling on the harbour of Vell.` },
      };
}

/** The naive store the original used: one JSONL file, re-read and parsed to find the leaf on each append. */
function naiveAppend(file: string, i: number): void {
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
  const leaf = lines.length ? (JSON.parse(lines[lines.length - 1]) as { id: number }).id : null;
  appendFileSync(file, `${JSON.stringify({ id: i + 1, parentId: leaf, ...entry(i) })}\n`);
}

/** Wall time of one call, in ms. */
function timeIt(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

export const suite: BenchSuite = {
  name: "harness",
  description: "session store (append throughput, active-path load) and turn-loop overhead per step",
  async run(report) {
    const dir = mkdtempSync(join(tmpdir(), "nb-bench-harness-"));
    const store = SessionStore.open(join(dir, "agent.sqlite"));
    try {
      // A 10,000-entry active path, plus an abandoned 5,000-entry branch, in a store with other sessions.
      const s2 = store.createSession({ profile });
      const big = 10_000;
      let branchAt = "";
      const grow = timeIt(() => {
        for (let i = 0; i < big; i++) {
          const e = store.append(s2.id, entry(i));
          if (i === big / 2) branchAt = e.id;
        }
      });
      report({ name: "append_10k_entries_per_s", unit: "entries/s", value: big / (grow / 1000) });

      // One more append to a 10,000-entry session, against the naive JSONL store at the same size
      // (it re-reads and parses the whole file to find the leaf): O(1) against O(N).
      const jsonl = join(dir, "naive.jsonl");
      writeFileSync(jsonl, "");
      for (let i = 0; i < big; i++)
        appendFileSync(jsonl, `${JSON.stringify({ id: i + 1, parentId: i || null, ...entry(i) })}\n`);
      let extra = big;
      const oursAt10k = await medianMs(() => store.append(s2.id, entry(extra++)), {
        iterations: 200,
        warmup: 20,
      });
      let naiveN = big;
      const naiveAt10k = await medianMs(() => naiveAppend(jsonl, naiveN++), { iterations: 30, warmup: 3 });
      report({
        name: "append_one_at_10k",
        unit: "ms",
        value: oursAt10k,
        baseline: naiveAt10k,
        ratio: naiveAt10k / oursAt10k,
      });
      const leaf = store.session(s2.id).leafId;
      store.setLeaf(s2.id, branchAt);
      for (let i = 0; i < big / 2; i++) store.append(s2.id, entry(i));
      store.setLeaf(s2.id, leaf);
      if (store.activePath(s2.id).length !== extra) throw new Error("active path has the wrong length");

      // Cold: a fresh connection (empty cache) reads the path by segment range scans.
      const file = join(dir, "agent.sqlite");
      const cold: number[] = [];
      for (let i = 0; i < 15; i++) {
        const fresh = SessionStore.open(file);
        cold.push(timeIt(() => fresh.activePath(s2.id)));
        fresh.close();
      }
      cold.sort((a, b) => a - b);
      const pathMs = cold[Math.floor(cold.length / 2)];
      // Naive: load every entry of the session and walk parent links in memory.
      const naivePath = await medianMs(
        () => {
          const all = store.allEntries(s2.id);
          const byId = new Map(all.map((e) => [e.id, e]));
          const out = [];
          for (let e = byId.get(leaf as string); e; e = e.parentId ? byId.get(e.parentId) : undefined)
            out.push(e);
          return out.reverse();
        },
        { iterations: 15, warmup: 3 },
      );
      report({
        name: "active_path_10k_load_cold",
        unit: "ms",
        value: pathMs,
        baseline: naivePath,
        ratio: naivePath / pathMs,
        target: "< 100 ms",
      });
      // Warm: what the loop pays each step — one new entry, then the path (extended from the cache).
      store.activePath(s2.id);
      const warm = await medianMs(
        () => {
          store.append(s2.id, entry(extra++));
          return store.activePath(s2.id);
        },
        { iterations: 200, warmup: 20 },
      );
      report({ name: "append_then_active_path_10k_warm", unit: "ms", value: warm });

      // One assistant step (message + two tool results) committed as one transaction.
      const s3 = store.createSession({ profile });
      let n = 0;
      const stepMs = await medianMs(
        () => {
          n++;
          store.commitStep(s3.id, [
            {
              kind: "assistant",
              data: {
                text: "Reading two files.",
                toolCalls: [
                  { id: `a${n}`, key: "read", input: { path: "lorebook/a.md" } },
                  { id: `b${n}`, key: "read", input: { path: "lorebook/b.md" } },
                ],
              },
            },
            { kind: "tool_result", data: { callId: `a${n}`, key: "read", ok: true, text: "alpha" } },
            { kind: "tool_result", data: { callId: `b${n}`, key: "read", ok: true, text: "beta" } },
          ]);
        },
        { iterations: 500, warmup: 50 },
      );
      report({ name: "commit_step_3_entries", unit: "ms", value: stepMs });
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
    await loopFigures.run(report);
  },
};
