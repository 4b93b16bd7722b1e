import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { History } from "../../src/history/history.js";
import { newChangeId } from "../../src/history/ids.js";
import { revertChanges } from "../../src/history/revert.js";
import { blameFile } from "../../src/history/review.js";
import { WorkTree } from "../../src/history/worktree.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { type DispatchContext, dispatch } from "../../src/tools/dispatch.js";
import type { Project } from "../../src/workspace/project.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { type BenchSuite, intOption } from "../lib.js";

const SIZES = [10, 100, 1000];
const WORDS_PER_CHAPTER = 3000;
const LISTED = 10_000;
const BLAME_WORDS = 10_000;
const BLAME_CHANGES = 200;

function paragraph(seed: number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(`w${(seed * 7919 + i * 104729) % 100000}`);
  return out.join(" ");
}

/** A chapter of about `words` words in paragraphs of 20 words, one a line. */
function chapter(n: number, words: number, variant = 0): string {
  const lines = [`# Chapter ${n}`, ""];
  for (let p = 0; p * 20 < words; p++) lines.push(paragraph(n * 1000 + p + variant * 7, 20), "");
  return lines.join("\n");
}

function bookWith(chapters: number): { dir: string; ws: Workspace; project: Project } {
  const dir = mkdtempSync(join(tmpdir(), "nb-bench-history-"));
  const ws = Workspace.init(dir);
  const project = ws.createProject("book", { title: "Bench" });
  for (let i = 1; i <= chapters; i++) {
    const folder = join(project.root, "manuscript", `ch-${String(i).padStart(4, "0")}`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "index.md"), chapter(i, WORDS_PER_CHAPTER));
  }
  return { dir, ws, project };
}

function chapterPath(i: number): string {
  return `manuscript/ch-${String(i).padStart(4, "0")}/index.md`;
}

/**
 * CPU time of this process and of its reaped children (git) in ms. On a shared machine the wall
 * time of a git run is mostly waiting for a core; the CPU time is what the work costs.
 */
function cpuMs(): number {
  const own = process.cpuUsage();
  // /proc/self/stat fields 16 and 17: children's user and system time, in clock ticks (1/100 s).
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  const children = (Number(fields[13]) + Number(fields[14])) * 10;
  return (own.user + own.system) / 1000 + children;
}

interface Paired {
  wall: [number, number];
  /** Mean CPU ms per call (children included). */
  cpu: [number, number];
}

/** Median wall time and mean CPU time (children included) of `fn`, after a warm-up. */
async function timed(
  fn: () => Promise<unknown> | unknown,
  iterations: number,
  warmup = 2,
): Promise<{ wall: number; cpu: number }> {
  for (let i = 0; i < warmup; i++) await fn();
  const walls: number[] = [];
  const c0 = cpuMs();
  for (let i = 0; i < iterations; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    walls.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const cpu = (cpuMs() - c0) / iterations;
  return { wall: [...walls].sort((x, y) => x - y)[Math.floor(walls.length / 2)], cpu };
}

/** Alternate two timed functions (each run once per round) so both see the same machine load. */
async function alternately(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  rounds: number,
): Promise<Paired> {
  const ta: number[] = [];
  const tb: number[] = [];
  const cpu = [0, 0];
  const time = async (fn: () => Promise<unknown>, into: number[], k: number) => {
    const c0 = cpuMs();
    const t0 = process.hrtime.bigint();
    await fn();
    into.push(Number(process.hrtime.bigint() - t0) / 1e6);
    cpu[k] += cpuMs() - c0;
  };
  for (let i = 0; i < 5; i++) {
    await a();
    await b();
  }
  for (let i = 0; i < rounds; i++) {
    await time(a, ta, 0);
    await time(b, tb, 1);
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return { wall: [median(ta), median(tb)], cpu: [cpu[0] / rounds, cpu[1] / rounds] };
}

export const suite: BenchSuite = {
  name: "history",
  description: `recorded chapter writes at ${SIZES.join(" / ")} chapters of ${WORDS_PER_CHAPTER} words; listing ${LISTED} changes; a revert; blame of a ${BLAME_WORDS}-word chapter with ${BLAME_CHANGES} changes`,
  async run(report, options) {
    const rounds = intOption(options, "rounds", 30);
    const registry = createToolRegistry();
    for (const size of SIZES) {
      const { dir, ws, project } = bookWith(size);
      try {
        const dctx: DispatchContext = {
          registry,
          workspace: ws,
          project,
          mode: "normal",
          profileKey: null,
          allow: "all",
        };
        await History.of(project).open();
        let n = 0;
        // The write alone: the same tool prepared and run as the pipeline does, with no record step,
        // in a project of its own (in the recorded one, its writes would be outside edits to record).
        const other = ws.createProject("bare", { title: "Bare" });
        const bare = async () => {
          const input = { path: `notes/bare-${n % size}.md`, content: chapter(n, WORDS_PER_CHAPTER, ++n) };
          const tool = registry.get("write");
          if (!tool) throw new Error("no write tool");
          const prepared = await tool.prepare(tool.input.parse(input), {
            workspace: ws,
            project: other,
            mode: "normal",
            profileKey: null,
            binding: {},
            worldFiles: "readwrite",
          });
          await prepared.run({ writes: "any" });
        };
        const recorded = async () => {
          const input = { path: chapterPath((n % size) + 1), content: chapter(n, WORDS_PER_CHAPTER, ++n) };
          const r = await dispatch({ key: "write", input }, dctx);
          if (!r.ok) throw new Error(r.error.message);
        };
        const paired = await alternately(recorded, bare, rounds);
        const [withRecord, alone] = paired.wall;
        report({
          name: `recorded write added @${size} chapters`,
          unit: "ms",
          value: withRecord - alone,
          baseline: alone,
          target: size === 1000 ? "< 10 ms" : "",
        });
        report({
          name: `recorded write added CPU @${size}`,
          unit: "ms",
          value: paired.cpu[0] - paired.cpu[1],
          baseline: paired.cpu[1],
          target: size === 1000 ? "< 10 ms" : "",
        });
        if (size === 1000) {
          const history = History.of(project);
          // The look for outside edits as a one-off process makes it: the stat cache read back from
          // the index, every folder and file stat'ed, no watch.
          const look = await timed(() => new WorkTree(project.root, history.index.seenStore()).scan(), 10);
          report({ name: "outside-edit look @1000, new process", unit: "ms", value: look.wall });
          report({ name: "outside-edit look CPU @1000, new process", unit: "ms", value: look.cpu });
          const write = await timed(recorded, 10);
          const both = await timed(
            async () => {
              await recorded();
              const [last] = history.index.list({ limit: 1 });
              await revertChanges(history, [last], {});
            },
            Math.max(5, Math.floor(rounds / 2)),
          );
          // Each revert is timed with the write it takes back: a recorded write's own time is subtracted.
          report({
            name: "revert @1000 chapters",
            unit: "ms",
            value: both.wall - write.wall,
            target: "< 100 ms",
          });
          report({
            name: "revert CPU @1000 chapters",
            unit: "ms",
            value: both.cpu - write.cpu,
            target: "< 100 ms",
          });
        }
      } finally {
        ws.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }

    // Listing: an index of 10,000 changes, newest first, all of them.
    {
      const { dir, ws, project } = bookWith(10);
      try {
        const history = History.of(project);
        await history.open();
        history.index.transaction(() => {
          const t0 = Date.now() - LISTED * 1000;
          for (let i = 0; i < LISTED; i++) {
            history.index.add({
              id: newChangeId(t0 + i * 1000),
              time: new Date(t0 + i * 1000).toISOString(),
              actor: i % 3 === 0 ? "user" : "agent",
              session: i % 3 === 0 ? null : String(1 + (i % 40)),
              profile: i % 3 === 0 ? null : "writer",
              tool: "write",
              callId: `call-${i}`,
              turn: null,
              targets: [chapterPath(1 + (i % 10))],
              summary: `Wrote ${chapterPath(1 + (i % 10))}`,
              commit: null,
              reverts: null,
            });
          }
        });
        const list = await timed(() => history.index.list(), 20, 3);
        report({ name: `list ${LISTED} changes`, unit: "ms", value: list.wall, target: "< 50 ms" });
        report({ name: `list ${LISTED} changes CPU`, unit: "ms", value: list.cpu, target: "< 50 ms" });
      } finally {
        ws.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }

    // Blame: one 10,000-word chapter changed 200 times, a paragraph each, by alternating actors.
    {
      const { dir, ws, project } = bookWith(10);
      try {
        const path = chapterPath(1);
        const file = join(project.root, path);
        writeFileSync(file, chapter(1, BLAME_WORDS));
        const history = History.of(project);
        await history.open();
        await history.recordOutside();
        const lines = chapter(1, BLAME_WORDS).split("\n");
        for (let c = 0; c < BLAME_CHANGES; c++) {
          const at = 2 + 2 * ((c * 37) % Math.floor((lines.length - 2) / 2));
          lines[at] = paragraph(50_000 + c, 20);
          const pending = await history.begin(newChangeId(), [path]);
          writeFileSync(file, lines.join("\n"));
          await history.finish(
            pending,
            {
              tool: "edit",
              session: c % 2 ? String(c) : null,
              profile: c % 2 ? "writer" : null,
              callId: null,
            },
            { summary: `edit ${c}`, targets: [path], rows: false },
          );
        }
        const blame = await timed(() => blameFile(history, path), 10);
        const name = `blame ${BLAME_WORDS} words, ${BLAME_CHANGES} changes`;
        report({ name, unit: "ms", value: blame.wall, target: "< 200 ms" });
        report({ name: `${name} CPU`, unit: "ms", value: blame.cpu, target: "< 200 ms" });
      } finally {
        ws.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  },
};
