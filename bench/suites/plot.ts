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
import { type PlotWorld, WorldLink } from "../../src/plot/world-link.js";
import { Workspace } from "../../src/workspace/workspace.js";
import type { WorldApi } from "../../src/world/api.js";
import { loadCalendar } from "../../src/world/calendar/index.js";
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
/** Subjects asked about at every scene end of the chapter in the cast benchmark. */
const CAST = 5;

/** The world facade without its batch reads: one call per subject and per (subject, instant). */
function unbatched(api: WorldApi): WorldApi {
  const subject: WorldApi["subject"] = {
    ...api.subject,
    infos: (ids) => ids.map((id) => api.subject.info(id)),
    statesAt: (pairs) => pairs.map((p) => api.subject.get(p.id, { at: p.at })),
  };
  return new Proxy(api, { get: (target, key) => (key === "subject" ? subject : Reflect.get(target, key)) });
}

/** A naive link: scenes asked one at a time, one world call per subject and per (subject, scene end). */
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

/** Medians of two functions timed alternately, so both see the same load on a shared machine. */
async function pairedMedians(
  a: () => unknown,
  b: () => unknown,
  iterations: number,
): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < 10 + iterations; i++) {
    for (const [k, fn] of [a, b].entries()) {
      const t0 = process.hrtime.bigint();
      await fn();
      if (i >= 10) times[k].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return [median(times[0]), median(times[1])];
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
  description: `${CHAPTERS} chapters, ${CHAPTERS * SCENES_PER_CHAPTER} anchored scenes (5 subjects each) over ${PATCHES} world patches; ${PROMISES} promises, ${BEATS} beats, ${DECISIONS} decisions; a cast of ${CAST} asked at every scene end of a chapter`,
  async run(report) {
    const dir = mkdtempSync(join(tmpdir(), "nb-bench-plot-"));
    try {
      const ws = Workspace.init(dir);
      ws.createProject("book", { title: "Bench" });
      buildWorld(ws);
      const project = ws.project("book");
      const pc = plotContext(project, "user");
      buildBook(pc);
      const chapterId = CHAPTERS / 2;
      const naiveLink = new WorldLink(
        () => unbatched(openWorld(project)),
        () => loadCalendar(project),
      );
      const naive: PlotContext = { ...pc, world: perSceneWorld(naiveLink) };
      const brief = getChapterWriterBrief(pc, chapterId);
      if (brief.scenes.length !== SCENES_PER_CHAPTER || brief.status !== "ready") {
        throw new Error(
          `benchmark book is not what it should be: ${brief.scenes.length} scenes, ${brief.status}`,
        );
      }
      const [fast, slow] = await pairedMedians(
        () => getChapterWriterBrief(pc, chapterId),
        () => getChapterWriterBrief(naive, chapterId),
        40,
      );
      report({
        name: "writer_brief_one_chapter",
        unit: "ms",
        value: fast,
        baseline: slow,
        ratio: slow / fast,
        target: "< 30 ms",
      });
      // A recurring cast (the same subjects in every scene) is where one walk per subject pays.
      const world = openWorld(project);
      const cast = Array.from({ length: CAST }, (_, i) => `c${i}`);
      const pairs = brief.scenes.flatMap((s) => cast.map((id) => ({ id, at: s.worldAnchor.endInstant! })));
      const [batch, single] = await pairedMedians(
        () => world.subject.statesAt(pairs),
        () => pairs.map((p) => world.subject.get(p.id, { at: p.at })),
        100,
      );
      report({
        name: "cast_states_one_chapter",
        unit: "ms",
        value: batch,
        baseline: single,
        ratio: single / batch,
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
