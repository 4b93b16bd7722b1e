import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEvents } from "../../src/memory/files.js";
import {
  getChapterWriterBrief,
  getStoryTree,
  listDecisions,
  listPromises,
  listScenes,
  openPlotContext,
  type PlotContext,
} from "../../src/plot/index.js";
import { createSampleProject, readSampleSeed, seedSample } from "../../src/sample/seed.js";
import type { Project } from "../../src/workspace/project.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { loadCalendar } from "../../src/world/calendar/index.js";
import { openWorld } from "../../src/world/world.js";
import { runNbookInProcess as runNbook } from "../helpers.js";

const dir = mkdtempSync(join(tmpdir(), "nbook-sample-"));
const ws = Workspace.init(join(dir, "ws"));
afterAll(() => {
  ws.close();
  rmSync(dir, { recursive: true, force: true });
});

const HAN = /\p{Script=Han}/u;

describe("the English sample novel", () => {
  let project: Project;
  let pc: PlotContext;
  beforeAll(async () => {
    project = await createSampleProject(ws, "demo");
    pc = await openPlotContext(project, "user");
  });

  it("has a world of four subjects whose state changes across the two chapters", async () => {
    const world = openWorld(project);
    const at = (text: string) => ({ at: loadCalendar(project).parse(text) });
    expect(world.subject.list().map((s) => `${s.type}:${s.id}`)).toEqual([
      "bell:third-bell",
      "character:mira",
      "character:tomas",
      "location:saltmarsh",
    ]);
    const inChapter1 = world.subject.get("mira", at("12 Fog 91 AL, 12:30"));
    expect(inChapter1).toMatchObject({ age: 17, mood: "afraid", location: "subject://saltmarsh" });
    expect(Object.keys(inChapter1?.knows as object)).toEqual(["mother"]);
    expect(world.subject.get("mira", at("13 Fog 91 AL, 08:00"))).toMatchObject({
      mood: "uneasy",
      knows: { "cut-page": expect.any(String) },
    });
    expect(world.subject.get("saltmarsh", at("12 Fog 91 AL, 12:30"))).toMatchObject({ sky: "clear" });
    expect(world.subject.get("saltmarsh")).toMatchObject({ water: "low" });
    expect(world.issues.list()).toEqual([]);
    expect(world.search.text("close to the spine").map((h) => h.subjectId)).toContain("tomas");
  });

  it("has acts, chapters with briefs, a thread of scenes anchored in world time, two promises and a decision", async () => {
    const tree = getStoryTree(pc);
    expect(tree.acts.map((a) => [a.name, a.chapters.map((c) => `${c.name}:${c.scenes}`)])).toEqual([
      ["the-clear-sky-bell", ["the-drowned-bell:2", "low-water:1", "the-bell-road:1"]],
      ["the-missing-page", []],
    ]);
    expect(tree.ungroupedThreads.map((t) => [t.name, t.isMain, t.scenes])).toEqual([
      ["clear-sky-bell", true, 4],
    ]);
    const scenes = listScenes(pc, {}).rows;
    expect(scenes.every((s) => s.startInstant !== null && s.endInstant !== null && s.subjects > 0)).toBe(
      true,
    );
    expect(listPromises(pc, {}).rows.map((p) => [p.name, p.stage])).toEqual([
      ["why-the-bells-were-silent", "planted"],
      ["what-the-clear-sky-bell-warns-of", "echoed"],
    ]);
    expect(listDecisions(pc, {}).rows.map((d) => [d.name, d.status])).toEqual([
      ["when-mira-learns-who-cut-the-page", "open"],
    ]);
    const brief = getChapterWriterBrief(pc, 2);
    expect(brief.status).toBe("ready");
    expect(brief.markdown).toContain("Time: 13 Fog 91 AL, 07:00 ~ 13 Fog 91 AL, 08:00");
    expect(brief.markdown).toContain("When Mira learns who cut the page");
  });
});

describe("the Chinese sample novel (--language zh)", () => {
  it("is Chinese throughout: files, world and plot", async () => {
    const project = await createSampleProject(ws, "saga", { language: "zh" });
    expect(project.meta()).toMatchObject({ language: "zh", title: "潮钟" });
    const chapter = readFileSync(join(project.root, "manuscript/01-the-drowned-bell/index.md"), "utf8");
    expect(chapter).toMatch(HAN);
    expect(chapter).not.toContain("Mira");
    expect(readFileSync(join(project.root, "world-engine/calendar.yaml"), "utf8")).toContain("簿纪");
    const world = openWorld(project);
    expect(world.subject.list().map((s) => s.name)).toEqual(["第三口钟", "林澜", "石守诚", "盐泽"]);
    const at = loadCalendar(project).parse("簿纪91年雾月13日 08:00");
    expect(world.subject.get("lin-lan", { at })).toMatchObject({
      mood: "不安",
      knows: { 缺页: expect.any(String) },
    });
    const brief = getChapterWriterBrief(await openPlotContext(project, "user"), 2);
    expect(brief.status).toBe("ready");
    expect(brief.markdown).toContain("章节写作简报");
    expect(brief.markdown).not.toMatch(/Mira|Saltmarsh|Tomas/);
  });
});

describe("subject memory in both samples", () => {
  for (const language of ["en", "zh"] as const) {
    it(`${language}: each subject is a character of the World Engine, by the same id, and its events are dated in the project calendar`, async () => {
      const project = await createSampleProject(ws, `memory-${language}`, { language });
      const characters = openWorld(project)
        .subject.list()
        .filter((s) => s.type === "character")
        .map((s) => s.id);
      const folder = join(project.root, "simulation/subjects");
      const subjects = readdirSync(folder).sort();
      expect(subjects).toEqual(characters);
      const calendar = loadCalendar(project);
      for (const id of subjects) {
        const dossier = readFileSync(join(folder, id, "subject.md"), "utf8");
        expect(/^id: (.+)$/m.exec(dossier)?.[1]).toBe(id);
        const events = parseEvents("events.jsonl", readFileSync(join(folder, id, "events.jsonl"), "utf8"));
        expect(events.length).toBeGreaterThan(0);
        for (const { value } of events) {
          expect(value.time, value.text).toBeDefined();
          // In the calendar, and in the story's present (the chapters are set in 91).
          const at = calendar.parse(value.time as string);
          expect(calendar.format(at)).toBe(value.time);
          expect(at).toBeGreaterThanOrEqual(
            calendar.parse(language === "zh" ? "簿纪91年雾月12日 12:00" : "12 Fog 91 AL, 12:00"),
          );
        }
      }
    });
  }
});

describe("seeding", () => {
  it("names the seed entry that fails, and writes none of a failed world", async () => {
    const seed = readSampleSeed(join(import.meta.dirname, "../../examples/sample-novel.seed.yaml"));
    const project = ws.createProject("broken", { sample: true });
    const bad = { ...seed, world: [{ ...seed.world[0], time: "31 Fog 91 AL, 00:00" }] };
    await expect(seedSample(project, bad)).rejects.toThrow(
      /Sample seed world\[0\] \(31 Fog 91 AL, 00:00\): .*day 31/,
    );
    expect(openWorld(project).subject.list()).toEqual([]);
  });
});

describe("nbook project create --sample", () => {
  it("builds the sample's world and plot, and the README's world and plot commands work on it", async () => {
    const cwd = join(dir, "cli");
    Workspace.init(cwd);
    expect((await runNbook(["project", "create", "demo", "--sample"], { cwd })).stderr).toBe("");
    const inProject = { cwd: join(cwd, "demo") };
    const state = await runNbook(["world", "state", "mira", "--at", "12 Fog 91 AL, 12:30"], inProject);
    expect(state.stdout).toContain('"mood": "afraid"');
    const brief = await runNbook(["plot", "brief", "2"], inProject);
    expect(brief.stdout).toContain("Status: ready");

    const zh = await runNbook(["project", "create", "saga", "--sample", "--language", "zh"], { cwd });
    expect(zh.stdout).toContain('Created project saga ("潮钟")');
    const zhState = await runNbook(["world", "state", "lin-lan", "--at", "簿纪91年雾月12日 13:00"], {
      cwd: join(cwd, "saga"),
    });
    expect(zhState.stdout).toContain('"mood": "不安"');
  });
});
