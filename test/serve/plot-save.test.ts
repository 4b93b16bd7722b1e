// POST /plot/save: the workbench's plot writes run the plot write tools themselves, so a bad
// input meets the tool's rule (with a pointer under /input) and a good one lands in the history.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNbook } from "../helpers.js";
import { type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
beforeAll(async () => {
  fx = await serveFixture({ sample: true, script: [{ text: "Hello." }] });
});
afterAll(async () => {
  await fx.close();
});

const save = (tool: string, input: Record<string, unknown>) =>
  fx.api("POST", "/api/projects/novel/plot/save", { tool, input });

describe("plot save", () => {
  it("renames a chapter and moves a scene through the tools; the change is in the history", async () => {
    const renamed = await save("save_story_chapter", { action: "update", chapterId: 2, title: "Ebb" });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({
      tool: "save_story_chapter",
      result: { id: 2, title: "Ebb" },
    });
    const moved = await save("save_story_scene", { action: "update", sceneId: 2, chapterId: 3 });
    expect(moved.status).toBe(200);
    const detail = (await (await fx.api("GET", "/api/projects/novel/plot/chapters/3")).json()) as {
      scenes: { id: number }[];
    };
    expect(detail.scenes.map((s) => s.id)).toContain(2);
    // The project folder of the fixture's workspace is the one the API calls "novel".
    const history = runNbook(["history", "--json", "--limit", "2"], { cwd: fx.bed.ws.project("novel").root });
    expect(history.status, history.stderr).toBe(0);
    expect((JSON.parse(history.stdout) as { tool: string }[]).map((h) => h.tool)).toEqual([
      "save_story_scene",
      "save_story_chapter",
    ]);
  });

  it("refuses a blank title with the tool's rule, pointed under /input, and an unknown tool", async () => {
    const blank = await save("save_story_chapter", { action: "update", chapterId: 1, title: "  " });
    expect(blank.status).toBe(400);
    const body = (await blank.json()) as { error: { code: string; fields: { pointer: string }[] } };
    expect(body.error.code).toBe("invalid_input");
    expect(body.error.fields.map((f) => f.pointer)).toContain("/input/title");
    const missing = await save("save_story_scene", { action: "update", sceneId: 9999, title: "Gone" });
    expect(missing.status).toBe(404);
    const unknown = await save("write", { path: "x.md", content: "" });
    expect(unknown.status).toBe(400);
    expect(
      ((await unknown.json()) as { error: { fields: { pointer: string }[] } }).error.fields[0]!.pointer,
    ).toBe("/body/tool");
  });
});
