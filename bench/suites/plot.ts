import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  getChapterWriterBrief,
  getStoryTree,
  listPromises,
  type PlotContext,
  plotContext,
  saveBeat,
  saveChapter,
  saveDecision,
  savePromise,
  saveScene,
  saveThread,
} from "../../src/plot/index.js";
import type { PlotWorld } from "../../src/plot/world-link.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { openWorld } from "../../src/world/world.js";
import { type BenchSuite, medianMs } from "../lib.js";

const CHAPTERS = 300;
const SCENES_PER_CHAPTER = 10;
const THREADS = 30;
const SUBJECTS = 500;
const PATCHES = 100_000;
const PATCHES_PER_SLICE = 10;
const SLICE_STEP = 3600;
const PROMISES = 200;
const BEATS = 2000;
const DECISIONS = 100;

/** The same world, asked one scene at a time (one identity, slice and state round trip per scene). */
function perSceneWorld(world: PlotWorld): PlotWorld {
  return {
    parseTime: (t) => world.parseTime(t),
    formatTime: (i) => world.formatTime(i),
    sceneContexts: (queries) => {
      const out = new Map();
      for (const q of queries) for (const [k, v] of world.sceneContexts([q])) out.set(k, v);
      return out;
    },
  };
}

function buildWorld(ws: Workspace): void {
  const world = openWorld(ws.project("book"));
  const slices = PATCHES / PATCHES_PER_SLICE;
  world.transaction(() => {
    for (let i = 0; i < slices; i++) {
      const patches = [];
      for (let j = 0; j < PATCHES_PER_SLICE; j++) {
        const n = (i * PATCHES_PER_SLICE + j) % SUBJECTS;
        patches.push({
          subjectId: `c${n}`,
          path: "/hp",
          op: "replace" as const,
          value: (i + j) % 100,
          ...(i * PATCHES_PER_SLICE + j < SUBJECTS ? { type: "character", name: `Character ${n}` } : {}),
        });
      }
      world.slice.write({ time: i * SLICE_STEP, title: `Event ${i}`, patches });
    }
  });
}

function buildBook(pc: PlotContext): void {
  const db = pc.db;
  db.transaction(() => {
    for (let t = 0; t < THREADS; t++)
      saveThread(pc, { action: "create", name: `thread-${t}`, title: `Thread ${t}`, isMain: t === 0 });
    const span = ((PATCHES / PATCHES_PER_SLICE) * SLICE_STEP) / (CHAPTERS * SCENES_PER_CHAPTER);
    for (let c = 0; c < CHAPTERS; c++) {
      const ch = saveChapter(pc, {
        action: "create",
        name: `ch-${c}`,
        title: `Chapter ${c}`,
        brief: { mustHide: "the heir" },
      });
      for (let s = 0; s < SCENES_PER_CHAPTER; s++) {
        const k = c * SCENES_PER_CHAPTER + s;
        const start = Math.floor(k * span);
        saveScene(pc, {
          action: "create",
          threadId: 1 + (k % THREADS),
          chapterId: ch.id,
          title: `Scene ${k}`,
          summary: `What happens in scene ${k}`,
          status: k % 7 === 0 ? "written" : "draft",
          worldAnchor: {
            startInstant: start,
            endInstant: start + Math.floor(span) - 1,
            subjectIds: Array.from({ length: 5 }, (_, j) => `c${(k * 5 + j) % SUBJECTS}`),
          },
          refs: [{ relation: "defines", target: `lorebook/scene-${k % 50}.md` }],
        });
      }
    }
    for (let p = 0; p < PROMISES; p++) {
      savePromise(pc, {
        action: "create",
        name: `promise-${p}`,
        title: `Promise ${p}`,
        importance: ["low", "medium", "high"][p % 3] as "low",
      });
    }
    const scenes = CHAPTERS * SCENES_PER_CHAPTER;
    for (let b = 0; b < BEATS; b++) {
      const promiseId = 1 + (b % PROMISES);
      const round = Math.floor(b / PROMISES);
      const sceneId = 1 + ((promiseId * 37 + round * 311) % scenes);
      const kind = round === 9 ? "payoff" : round === 0 ? "plant" : round % 3 === 0 ? "setback" : "advance";
      saveBeat(pc, { action: "set", promiseId, sceneId, kind, note: `beat ${b}`, autoFulfill: b % 2 === 0 });
    }
    for (let d = 0; d < DECISIONS; d++) {
      saveDecision(pc, {
        action: "create",
        name: `decision-${d}`,
        title: `Decision ${d}`,
        question: `Question ${d}?`,
        options: [{ option: "yes" }, { option: "no" }],
        deadlineChapterId: 1 + ((d * 3) % CHAPTERS),
        anchor: d % 4 === 0 ? { kind: "thread", id: 1 + (d % THREADS) } : { kind: "story" },
      });
    }
  })();
}

export const suite: BenchSuite = {
  name: "plot",
  description: `${CHAPTERS} chapters, ${CHAPTERS * SCENES_PER_CHAPTER} anchored scenes (5 subjects each) over ${PATCHES} world patches; ${PROMISES} promises, ${BEATS} beats, ${DECISIONS} decisions`,
  async run(report) {
    const dir = mkdtempSync(join(tmpdir(), "nb-bench-plot-"));
    try {
      const ws = Workspace.init(dir);
      ws.createProject("book", { title: "Bench" });
      buildWorld(ws);
      const pc = plotContext(ws.project("book"), "user");
      buildBook(pc);
      const chapterId = CHAPTERS / 2;
      const naive: PlotContext = { ...pc, world: perSceneWorld(pc.world!) };
      const brief = getChapterWriterBrief(pc, chapterId);
      if (brief.scenes.length !== SCENES_PER_CHAPTER || brief.status !== "ready") {
        throw new Error(
          `benchmark book is not what it should be: ${brief.scenes.length} scenes, ${brief.status}`,
        );
      }
      const fast = await medianMs(() => getChapterWriterBrief(pc, chapterId), { iterations: 40 });
      const slow = await medianMs(() => getChapterWriterBrief(naive, chapterId), { iterations: 40 });
      report({
        name: "writer_brief_one_chapter",
        unit: "ms",
        value: fast,
        baseline: slow,
        ratio: slow / fast,
        target: "< 30 ms",
      });
      report({
        name: "story_tree_compact",
        unit: "ms",
        value: await medianMs(() => getStoryTree(pc), { iterations: 30 }),
        target: "< 50 ms",
      });
      report({
        name: "promise_list_page_50",
        unit: "ms",
        value: await medianMs(() => listPromises(pc, { status: "open", limit: 50, cursor: "50" }), {
          iterations: 50,
        }),
      });
      ws.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
