// `@`-mentions over the API: the popup's candidates, and a message's mentions resolved on the
// server into context the scripted model's request carries, fenced; paths outside the project refused.
import { afterEach, describe, expect, it } from "vitest";
import { type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
afterEach(async () => {
  await fx.close();
});

type Json = Record<string, unknown>;
const CHAPTER = "manuscript/01-the-drowned-bell/index.md";

async function session(): Promise<string> {
  const res = await fx.api("POST", "/api/projects/novel/sessions", {});
  return ((await res.json()) as { session: { id: string } }).session.id;
}

async function runEnd(id: string): Promise<Json> {
  await fx.hub.idle();
  const tr = (await (await fx.api("GET", `/api/sessions/${id}/transcript`)).json()) as { entries: Json[] };
  return tr.entries.filter((e) => e.kind === "run_end").at(-1)?.data as Json;
}

describe("@-mentions in the chat", () => {
  it("offers files, scenes and subjects matching what was typed", async () => {
    fx = await serveFixture({ sample: true, script: [{ text: "ok" }] });
    const list = async (q: string) =>
      (
        (await (await fx.api("GET", `/api/projects/novel/mentions?q=${encodeURIComponent(q)}`)).json()) as {
          candidates: { mention: Json; label: string }[];
        }
      ).candidates;
    expect((await list("drowned")).map((c) => c.mention)).toContainEqual({ kind: "file", path: CHAPTER });
    const scenes = (await list("bell rings")).filter((c) => c.mention.kind === "scene");
    expect(scenes.map((c) => c.label)).toContain("The bell rings at noon");
    expect((await list("mira")).map((c) => c.mention)).toContainEqual({ kind: "subject", id: "mira" });
    expect(await list("no such thing anywhere")).toEqual([]);
  });

  it("attaches the file, the scene and the subject to the message the model is sent, fenced", async () => {
    const scene = "The bell rings at noon";
    fx = await serveFixture({
      sample: true,
      script: [
        { text: "Read the chapter.", expect: { lastUser: "<<<untrusted-file-mention " } },
        { text: "Saw the scene.", expect: { lastUser: scene } },
        { text: "Saw Mira.", expect: { lastUser: '"mira"' } },
      ],
    });
    const id = await session();
    const scenes = (await (
      await fx.api("GET", `/api/projects/novel/mentions?q=${encodeURIComponent(scene)}`)
    ).json()) as {
      candidates: { mention: { kind: string; id: number } }[];
    };
    const sceneId = scenes.candidates.find((c) => c.mention.kind === "scene")!.mention.id;

    const send = (mentions: Json[]) =>
      fx.api("POST", `/api/sessions/${id}/prompt`, { message: "Look at this", mentions });
    expect((await send([{ kind: "file", path: CHAPTER }])).status).toBe(202);
    expect(await runEnd(id)).toMatchObject({ status: "completed" });
    expect((await send([{ kind: "scene", id: sceneId }])).status).toBe(202);
    expect(await runEnd(id)).toMatchObject({ status: "completed" });
    expect((await send([{ kind: "subject", id: "mira" }])).status).toBe(202);
    expect(await runEnd(id)).toMatchObject({ status: "completed" });

    // The stored message keeps what was attached, for the chat to show.
    const tr = (await (await fx.api("GET", `/api/sessions/${id}/transcript`)).json()) as { entries: Json[] };
    const users = tr.entries.filter((e) => e.kind === "user").map((e) => e.data as Json);
    expect(users[0].attachments).toMatchObject([{ kind: "file", ref: CHAPTER, truncated: false }]);
    expect((users[0].attachments as Json[])[0].text).toContain("the third bell rang");
    expect(users[1].attachments).toMatchObject([{ kind: "scene", ref: String(sceneId) }]);
    expect(users[2].attachments).toMatchObject([{ kind: "subject", ref: "mira" }]);
  });

  it("refuses a mention of a path outside the project, pointing at it, and runs nothing", async () => {
    fx = await serveFixture({ sample: true, script: [{ text: "should not run" }] });
    const id = await session();
    for (const path of ["../outside.md", "/etc/passwd"]) {
      const res = await fx.api("POST", `/api/sessions/${id}/prompt`, {
        message: "Look",
        mentions: [
          { kind: "file", path: CHAPTER },
          { kind: "file", path },
        ],
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      const body = (await res.json()) as {
        error: { code: string; fields: { pointer: string }[]; message: string };
      };
      expect(["path_escape", "not_allowed"]).toContain(body.error.code);
      expect(body.error.fields[0].pointer).toBe("/mentions/1/path");
      expect(body.error.message).not.toContain(fx.bed.dir);
    }
    const unknown = await fx.api("POST", `/api/sessions/${id}/prompt`, {
      message: "Look",
      mentions: [{ kind: "subject", id: "nobody" }],
    });
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("not_found");
    const tr = (await (await fx.api("GET", `/api/sessions/${id}/transcript`)).json()) as { entries: Json[] };
    expect(tr.entries.filter((e) => e.kind === "user")).toEqual([]);
  });

  it("cuts a long file to the size cap and says so", async () => {
    fx = await serveFixture({
      sample: true,
      script: [{ text: "ok", expect: { lastUser: "(cut to its first part)" } }],
    });
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    writeFileSync(join(fx.bed.project.root, "notes.md"), "word ".repeat(10_000));
    const id = await session();
    await fx.api("POST", `/api/sessions/${id}/prompt`, {
      message: "Look",
      mentions: [{ kind: "file", path: "notes.md" }],
    });
    expect(await runEnd(id)).toMatchObject({ status: "completed" });
    const tr = (await (await fx.api("GET", `/api/sessions/${id}/transcript`)).json()) as { entries: Json[] };
    const a = ((tr.entries.find((e) => e.kind === "user")!.data as Json).attachments as Json[])[0];
    expect(a).toMatchObject({ truncated: true });
    expect((a.text as string).length).toBe(20_000);
  });
});
