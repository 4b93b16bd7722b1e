// Goals and the daily log through the API: targets saved and checked, each chapter's words against
// its target, and today's words split by who wrote them — the author (a workbench save) and an
// agent (a write run as a profile) — counted from the history, once per change.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffWords, localDay } from "../../src/goals/word-log.js";
import type { GoalsView } from "../../src/serve/responses.js";
import { runNbook } from "../helpers.js";
import { type ServeFixture, serveFixture } from "../serve/fixture.js";

let fx: ServeFixture;
beforeAll(async () => {
  fx = await serveFixture({ sample: true, script: [{ text: "Hello." }] });
});
afterAll(async () => {
  await fx.close();
});

const goals = async () => {
  const res = await fx.api("GET", "/api/projects/novel/goals");
  expect(res.status).toBe(200);
  return (await res.json()) as GoalsView;
};

describe("word counting of a change", () => {
  it("counts words on added and removed lines of manuscript Markdown only, CJK by character", () => {
    const diff = [
      "diff --git a/manuscript/01-a/index.md b/manuscript/01-a/index.md",
      "--- a/manuscript/01-a/index.md",
      "+++ b/manuscript/01-a/index.md",
      "@@ -1,2 +1,2 @@",
      "-The old line here.",
      "+The new line is longer now.",
      "+雾散了。",
      "diff --git a/lorebook/x/index.md b/lorebook/x/index.md",
      "+Not the manuscript at all.",
    ].join("\n");
    expect(diffWords(diff)).toEqual({ added: 6 + 3, removed: 4 });
  });

  it("names the local day of a time", () => {
    const d = new Date(2026, 11, 2, 23, 30);
    expect(localDay(d.toISOString())).toBe("2026-12-02");
  });
});

describe("goals API", () => {
  it("saves targets, refuses a bad one with its pointer, and shows each chapter against its target", async () => {
    const before = await goals();
    expect(before.goals).toEqual({ daily: null, book: null, chapters: {} });
    const first = before.progress.chapters[0]!;
    expect(first.words).toBeGreaterThan(0);
    expect(before.progress.total).toBe(before.progress.chapters.reduce((n, c) => n + c.words, 0));
    const put = await fx.api("PUT", "/api/projects/novel/goals", {
      goals: { daily: 10, book: 80000, chapters: { [first.path]: first.words } },
    });
    expect(put.status).toBe(200);
    const after = (await put.json()) as GoalsView;
    expect(after.progress.chapters[0]).toMatchObject({ path: first.path, target: first.words });
    expect((await goals()).goals.book).toBe(80000);
    const bad = await fx.api("PUT", "/api/projects/novel/goals", { goals: { daily: 0 } });
    expect(bad.status).toBe(400);
    const err = (await bad.json()) as { error: { fields: { pointer: string }[] } };
    expect(err.error.fields[0]!.pointer).toBe("/body/goals/daily");
    const outside = await fx.api("PUT", "/api/projects/novel/goals", {
      goals: { chapters: { "../x.md": 5 } },
    });
    expect(outside.status).toBe(400);
    expect((await goals()).goals.daily).toBe(10);
  });

  it("counts today's words by you and by agents from the history, once per change", async () => {
    const base = (await goals()).days.at(-1)!;
    const path = "manuscript/01-the-drowned-bell/index.md";
    const file = (await (
      await fx.api("GET", `/api/projects/novel/files/read?path=${encodeURIComponent(path)}`)
    ).json()) as {
      text: string;
      version: string;
    };
    const saved = await fx.api("PUT", "/api/projects/novel/files/write", {
      path,
      content: `${file.text}\nShe counted seven bells and said nothing.\n`,
      baseVersion: file.version,
    });
    expect(saved.status, await saved.clone().text()).toBe(200);
    const agent = runNbook(
      [
        "tool",
        "write",
        "--profile",
        "leader.default",
        "--input",
        JSON.stringify({ path: "manuscript/02-low-water/notes.md", content: "The tide came in at dusk.\n" }),
        "--json",
      ],
      { cwd: fx.bed.ws.project("novel").root },
    );
    expect(agent.status, agent.stderr).toBe(0);
    const today = (await goals()).days.at(-1)!;
    expect(today.day).toBe(localDay(new Date().toISOString()));
    expect(today.you.added - base.you.added).toBe(7);
    expect(today.agents.added - base.agents.added).toBe(6);
    // Counted once per change: asking again gives the same figures.
    expect((await goals()).days.at(-1)).toEqual(today);
  });
});
