// Every plot write door records its change, and the workbench hears of writes whose results name no
// file: `POST …/plot/save` (recorded, revertable, `plot_changed` on the workspace stream), `nbook plot
// delete` and the phase commands (recorded, revertable), and an agent's bash write or
// subject_event_append (`files_changed` with the paths its change recorded).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { plotDb } from "../../src/plot/db.js";
import { runNbook } from "../helpers.js";
import { readEvents, type ServeFixture, serveFixture } from "../serve/fixture.js";

let fx: ServeFixture;
afterEach(async () => {
  await fx.close();
});

type Json = Record<string, unknown>;
interface Listed {
  changes: { id: string; actor: string; tool: string | null; summary: string }[];
}

const chapter = (name: string) =>
  plotDb(fx.bed.project).prepare("SELECT id, title FROM story_chapter WHERE name = ?").get(name) as
    | { id: number; title: string }
    | undefined;

describe("plot writes of the user", () => {
  it("POST …/plot/save is recorded, publishes plot_changed, and its revert restores the row", async () => {
    fx = await serveFixture();
    const stream = await fx.api("GET", "/api/events");
    const save = (input: Json) =>
      fx.api("POST", "/api/projects/novel/plot/save", { tool: "save_story_chapter", input });
    expect((await save({ action: "create", name: "storm", title: "The storm" })).status).toBe(200);
    const id = chapter("storm")!.id;
    expect((await save({ action: "update", chapterId: id, title: "The great storm" })).status).toBe(200);
    const events = await readEvents(
      stream.body as ReadableStream<Uint8Array>,
      (e) => e.filter((x) => x.event === "plot_changed").length >= 2,
    );
    expect(events.filter((e) => e.event === "plot_changed").map((e) => e.data)).toEqual([
      { project: "novel", sessionId: null, tool: "save_story_chapter" },
      { project: "novel", sessionId: null, tool: "save_story_chapter" },
    ]);

    const list = (await (await fx.api("GET", "/api/projects/novel/history")).json()) as Listed;
    expect(list.changes.slice(0, 2).map((c) => [c.actor, c.tool])).toEqual([
      ["user", "save_story_chapter"],
      ["user", "save_story_chapter"],
    ]);
    const rev = await fx.api("POST", "/api/projects/novel/history/revert", { ids: [list.changes[0].id] });
    expect(rev.status).toBe(200);
    expect(chapter("storm")?.title).toBe("The storm");
  });

  it("`nbook plot delete` and `nbook plot phase` are recorded; reverting the delete puts the row back", async () => {
    fx = await serveFixture();
    await fx.api("POST", "/api/projects/novel/plot/save", {
      tool: "save_story_chapter",
      input: { action: "create", name: "storm", title: "The storm" },
    });
    const id = chapter("storm")!.id;
    const before = plotDb(fx.bed.project).prepare("SELECT * FROM story_chapter WHERE id = ?").get(id);
    const cli = (args: string[]) => {
      const r = runNbook([...args, "--workspace", fx.bed.ws.root, "--project", "novel"], { cwd: fx.bed.dir });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout;
    };
    cli(["plot", "phase", "add", "the-flight", "--title", "The flight"]);
    cli(["plot", "delete", "chapter", String(id), "--yes"]);
    expect(chapter("storm")).toBeUndefined();

    const listed = JSON.parse(cli(["history", "--json"])) as Listed["changes"];
    expect(listed.slice(0, 2).map((c) => [c.actor, c.tool])).toEqual([
      ["user", "nbook plot delete"],
      ["user", "nbook plot phase add"],
    ]);
    expect(listed[0].summary).toContain("Deleted chapter");
    const shown = JSON.parse(cli(["history", "show", listed[0].id, "--json"])) as {
      rows: { plot: { op: string; table: string }[] };
    };
    expect(shown.rows.plot).toEqual(
      expect.arrayContaining([expect.objectContaining({ op: "delete", table: "story_chapter" })]),
    );

    cli(["revert", listed[0].id]);
    expect(plotDb(fx.bed.project).prepare("SELECT * FROM story_chapter WHERE id = ?").get(id)).toEqual(
      before,
    );
    cli(["revert", listed[1].id]);
    expect(
      plotDb(fx.bed.project).prepare("SELECT COUNT(*) AS n FROM story_phase WHERE name = 'the-flight'").get(),
    ).toEqual({ n: 0 });
  });
});

describe("the workspace stream", () => {
  it("tells of the files an agent's bash command wrote (the paths its recorded change holds)", async () => {
    fx = await serveFixture({
      script: [
        {
          toolCalls: [
            { name: "bash", input: { command: "mkdir -p notes && printf 'tide\\n' > notes/tide.md" } },
          ],
        },
        { text: "Wrote the note." },
      ],
    });
    const stream = await fx.api("GET", "/api/events");
    const res = await fx.api("POST", "/api/projects/novel/sessions", { mode: "normal" });
    const id = ((await res.json()) as { session: { id: string } }).session.id;
    expect((await fx.api("POST", `/api/sessions/${id}/prompt`, { message: "write a note" })).status).toBe(
      202,
    );
    await fx.hub.idle();
    expect(readFileSync(join(fx.bed.project.root, "notes/tide.md"), "utf8")).toBe("tide\n");
    const events = await readEvents(stream.body as ReadableStream<Uint8Array>, (e) =>
      e.some((x) => x.event === "files_changed"),
    );
    expect(events.find((e) => e.event === "files_changed")?.data).toMatchObject({
      project: "novel",
      sessionId: id,
      tool: "bash",
      paths: ["notes/tide.md"],
    });
  });

  it("tells of the events file subject_event_append wrote", async () => {
    const subject = "simulation/subjects/mira";
    fx = await serveFixture({
      script: [
        {
          toolCalls: [
            {
              name: "subject_event_append",
              input: { subjectPath: subject, events: [{ text: "Mira hears the bell." }] },
            },
          ],
        },
        { text: "Noted." },
      ],
    });
    const stream = await fx.api("GET", "/api/events");
    const res = await fx.api("POST", "/api/projects/novel/sessions", {
      profile: "simulator.actor",
      mode: "normal",
      initial: { subjectPath: subject, kind: "npc" },
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { session: { id: string } }).session.id;
    expect((await fx.api("POST", `/api/sessions/${id}/prompt`, { message: "the bell rings" })).status).toBe(
      202,
    );
    await fx.hub.idle();
    const events = await readEvents(stream.body as ReadableStream<Uint8Array>, (e) =>
      e.some((x) => x.event === "files_changed"),
    );
    expect(events.find((e) => e.event === "files_changed")?.data).toMatchObject({
      project: "novel",
      sessionId: id,
      tool: "subject_event_append",
      paths: [`${subject}/events.jsonl`],
    });
  });
});
