import { readFileSync, rmSync } from "node:fs";
import { basename } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { NbError } from "../core/errors.js";
import { formatFieldErrors, parseOrThrow, zodFieldErrors } from "../core/validate.js";
import {
  openPlotContext,
  type PlotContext,
  saveAct,
  saveBeat,
  saveChapter,
  saveDecision,
  savePromise,
  saveScene,
  saveThread,
} from "../plot/index.js";
import type { Project } from "../workspace/project.js";
import { type CreateProjectOptions, sampleNovelDir, type Workspace } from "../workspace/workspace.js";
import { sliceWriteSchema } from "../world/api.js";
import { openCalendar } from "../world/calendar/index.js";
import { openWorld } from "../world/world.js";

// The seed's own fields (names instead of ids, calendar strings instead of instants); every other
// field goes to the World Engine or plot service as written, which validates it like any caller's.
const name = z.string().min(1);
const SliceSeed = z.looseObject({ time: z.string().min(1) });
const ActSeed = z.looseObject({ name, chapters: z.array(z.looseObject({ name })).default([]) });
const SceneSeed = z.looseObject({ key: name, chapter: name.optional() });
const ThreadSeed = z.looseObject({ name, scenes: z.array(SceneSeed).default([]) });
const BeatSeed = z.object({ scene: name, kind: z.string(), note: z.string().optional() }).strict();
const PromiseSeed = z.looseObject({
  name,
  deadlineChapter: name.optional(),
  beats: z.array(BeatSeed).default([]),
});
const DecisionSeed = z.looseObject({
  name,
  deadlineChapter: name.optional(),
  anchor: z
    .object({ kind: z.string(), name: name.optional(), path: z.string().optional() })
    .strict()
    .optional(),
  serves: z.array(z.string()).optional(),
  dependsOn: z.array(z.string()).optional(),
});
const SampleSeedSchema = z
  .object({
    world: z.array(SliceSeed).default([]),
    plot: z
      .object({
        acts: z.array(ActSeed).default([]),
        threads: z.array(ThreadSeed).default([]),
        promises: z.array(PromiseSeed).default([]),
        decisions: z.array(DecisionSeed).default([]),
      })
      .strict()
      .default({ acts: [], threads: [], promises: [], decisions: [] }),
  })
  .strict();
export type SampleSeed = z.infer<typeof SampleSeedSchema>;

/** Read and check a sample seed file (`examples/<sample>.seed.yaml`). */
export function readSampleSeed(file: string): SampleSeed {
  const r = SampleSeedSchema.safeParse(parseYaml(readFileSync(file, "utf8")));
  if (!r.success) {
    const fields = zodFieldErrors(r.error);
    throw new NbError("config_error", `Invalid ${basename(file)}:\n${formatFieldErrors(fields)}`, { fields });
  }
  return r.data;
}

/** Run one seeding step; a failure names the seed entry it came from. */
function step<T>(where: string, run: () => T): T {
  try {
    return run();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    throw new NbError("config_error", `Sample seed ${where}: ${message}`);
  }
}

/** Ids of the named things created so far, by kind. */
class Names {
  private readonly ids = new Map<string, number>();

  set(kind: string, key: string, id: number): void {
    this.ids.set(`${kind}:${key}`, id);
  }

  id(kind: string, key: string): number {
    const id = this.ids.get(`${kind}:${key}`);
    if (id === undefined) throw new Error(`no ${kind} named "${key}" earlier in the seed`);
    return id;
  }

  /** `promise:<name>` → `promise://<id>` (also thread, decision, scene); anything else is a path. */
  ref(text: string): string {
    const m = /^(promise|thread|decision|scene):(.+)$/.exec(text);
    return m ? `${m[1]}://${this.id(m[1], m[2])}` : text;
  }
}

function withoutKeys(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
}

function seedPlot(pc: PlotContext, plot: SampleSeed["plot"]): void {
  const names = new Names();
  plot.acts.forEach((act, i) => {
    const { id: actId } = step(`plot.acts[${i}]`, () =>
      saveAct(pc, { action: "create", ...withoutKeys(act, ["chapters"]) }),
    );
    names.set("act", act.name, actId);
    act.chapters.forEach((chapter, j) => {
      const { id } = step(`plot.acts[${i}].chapters[${j}]`, () =>
        saveChapter(pc, { action: "create", actId, ...chapter }),
      );
      names.set("chapter", chapter.name, id);
    });
  });
  plot.threads.forEach((thread, i) => {
    const { id: threadId } = step(`plot.threads[${i}]`, () =>
      saveThread(pc, { action: "create", ...withoutKeys(thread, ["scenes"]) }),
    );
    names.set("thread", thread.name, threadId);
    thread.scenes.forEach((scene, j) => {
      const { id } = step(`plot.threads[${i}].scenes[${j}]`, () =>
        saveScene(pc, {
          action: "create",
          threadId,
          ...withoutKeys(scene, ["key", "chapter"]),
          ...(scene.chapter ? { chapterId: names.id("chapter", scene.chapter) } : {}),
        }),
      );
      names.set("scene", scene.key, id);
    });
  });
  plot.promises.forEach((promise, i) => {
    const { id: promiseId } = step(`plot.promises[${i}]`, () =>
      savePromise(pc, {
        action: "create",
        ...withoutKeys(promise, ["beats", "deadlineChapter"]),
        ...(promise.deadlineChapter
          ? { deadlineChapterId: names.id("chapter", promise.deadlineChapter) }
          : {}),
      }),
    );
    names.set("promise", promise.name, promiseId);
    promise.beats.forEach((beat, j) => {
      step(`plot.promises[${i}].beats[${j}]`, () =>
        saveBeat(pc, {
          action: "set",
          promiseId,
          sceneId: names.id("scene", beat.scene),
          kind: beat.kind,
          ...(beat.note ? { note: beat.note } : {}),
        }),
      );
    });
  });
  plot.decisions.forEach((decision, i) => {
    const { id } = step(`plot.decisions[${i}]`, () => {
      const { anchor, deadlineChapter, serves, dependsOn } = decision;
      return saveDecision(pc, {
        action: "create",
        ...withoutKeys(decision, ["anchor", "deadlineChapter", "serves", "dependsOn"]),
        ...(deadlineChapter ? { deadlineChapterId: names.id("chapter", deadlineChapter) } : {}),
        ...(anchor
          ? {
              anchor: {
                kind: anchor.kind,
                ...(anchor.name ? { id: names.id(anchor.kind, anchor.name) } : {}),
                ...(anchor.path ? { path: anchor.path } : {}),
              },
            }
          : {}),
        ...(serves ? { serves: serves.map((r) => names.ref(r)) } : {}),
        ...(dependsOn ? { dependsOn: dependsOn.map((r) => names.ref(r)) } : {}),
      });
    });
    names.set("decision", decision.name, id);
  });
}

/**
 * Load a seed into a project's World Engine and plot through their public services, each in one
 * transaction: slices at calendar times, then acts, chapters, threads, scenes, promises with their
 * beats, and decisions.
 */
export async function seedSample(project: Project, seed: SampleSeed): Promise<void> {
  const calendar = await openCalendar(project);
  const world = openWorld(project);
  world.transaction(() => {
    seed.world.forEach((slice, i) => {
      step(`world[${i}] (${slice.time})`, () =>
        world.slice.write(
          parseOrThrow(sliceWriteSchema, { ...slice, time: calendar.parse(slice.time) }, "slice"),
        ),
      );
    });
  });
  const pc = await openPlotContext(project, "user");
  pc.db.transaction(() => seedPlot(pc, seed.plot))();
}

/**
 * Create a project from the sample novel in `language` (English by default, or Chinese): its files
 * from examples/, then its world and plot built fresh from the seed beside them. A project whose
 * seeding fails is removed, so the command can simply be run again.
 */
export async function createSampleProject(
  workspace: Workspace,
  projectName: string,
  opts: Omit<CreateProjectOptions, "sample"> = {},
): Promise<Project> {
  const seed = readSampleSeed(`${sampleNovelDir(opts.language ?? "en")}.seed.yaml`);
  const project = workspace.createProject(projectName, { ...opts, sample: true });
  try {
    await seedSample(project, seed);
  } catch (e) {
    project.close();
    rmSync(project.root, { recursive: true, force: true });
    throw e;
  }
  return project;
}
