// GET /plot/scenes/:id: one scene whole, as the workbench edits it. GET /plot/timeline: the sample's scenes on its calendar beside their places in the book, and the
// world's events; narrowed to one subject; a flashback (told later than it happens) keeps both orders.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Timeline } from "../../src/serve/responses.js";
import { type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
beforeAll(async () => {
  fx = await serveFixture({ sample: true, script: [{ text: "Hello." }] });
});
afterAll(async () => {
  await fx.close();
});

const timeline = async (query = "") => {
  const res = await fx.api("GET", `/api/projects/novel/plot/timeline${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Timeline;
};
const save = (tool: string, input: Record<string, unknown>) =>
  fx.api("POST", "/api/projects/novel/plot/save", { tool, input });

describe("plot timeline", () => {
  it("lists scenes by story time with calendar times and reading positions, and world events", async () => {
    const t = await timeline();
    const timed = t.scenes.filter((s) => s.startInstant !== null);
    expect(timed.length).toBeGreaterThan(0);
    const instants = timed.map((s) => s.startInstant!);
    expect(instants).toEqual([...instants].sort((a, b) => a - b));
    for (const s of timed) expect(s.startTime).toMatch(/AL/);
    const positions = t.scenes.map((s) => s.position).filter((p) => p !== null);
    expect([...positions].sort((a, b) => a! - b!)).toEqual(positions.map((_, i) => i + 1));
    expect(t.events.length).toBeGreaterThan(0);
    expect(t.events.map((e) => e.instant)).toEqual(t.events.map((e) => e.instant).sort((a, b) => a - b));
    expect(t.events[0]!.time).toMatch(/AL/);
  });

  it("a scene told first but set last sorts by its time and keeps its reading position", async () => {
    const before = await timeline();
    const first = before.scenes.find((s) => s.position === 1)!;
    const latest = Math.max(...before.scenes.map((s) => s.startInstant ?? 0));
    const moved = await save("save_story_scene", {
      action: "update",
      sceneId: first.id,
      worldAnchor: { startInstant: latest + 3600, endInstant: latest + 7200 },
    });
    expect(moved.status, await moved.clone().text()).toBe(200);
    const after = await timeline();
    const timed = after.scenes.filter((s) => s.startInstant !== null);
    expect(timed.at(-1)).toMatchObject({ id: first.id, position: 1 });
  });

  it("narrows scenes and events to one subject, and says which subject is unknown", async () => {
    const all = await timeline();
    const mira = await timeline("?subject=mira");
    expect(mira.scenes.length).toBeGreaterThan(0);
    expect(mira.scenes.length).toBeLessThanOrEqual(all.scenes.length);
    for (const s of mira.scenes) expect([...s.subjectIds, s.locationSubjectId]).toContain("mira");
    expect(mira.events.length).toBeLessThanOrEqual(all.events.length);
    const res = await fx.api("GET", "/api/projects/novel/plot/timeline?subject=nobody");
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("nobody");
  });

  it("answers one scene whole, and 404/400 for a missing or malformed id", async () => {
    const res = await fx.api("GET", "/api/projects/novel/plot/scenes/1");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id: 1,
      title: "The bell rings at noon",
      worldAnchor: { startTime: expect.stringMatching(/AL/) },
    });
    expect((await fx.api("GET", "/api/projects/novel/plot/scenes/999")).status).toBe(404);
    const bad = await fx.api("GET", "/api/projects/novel/plot/scenes/x1");
    expect(bad.status).toBe(400);
    expect(
      ((await bad.json()) as { error: { fields: { pointer: string }[] } }).error.fields[0]!.pointer,
    ).toBe("/params/sceneId");
  });
});
