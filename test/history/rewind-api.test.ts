import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ServeFixture, serveFixture } from "../serve/fixture.js";

let fx: ServeFixture;
afterEach(async () => {
  await fx.close();
});

const write = (content: string) => ({
  toolCalls: [{ name: "write", input: { path: "notes/a.md", content } }],
});
type Json = Record<string, any>;

async function prompt(id: string, message: string) {
  expect((await fx.api("POST", `/api/sessions/${id}/prompt`, { message })).status).toBe(202);
  await fx.hub.idle();
}

describe("rewind, undo and fork over the API", () => {
  it("rewinds conversation and files, undoes, forks; bad ids are clear errors", async () => {
    fx = await serveFixture({
      script: [
        write("one\n"),
        { text: "wrote one" },
        write("two\n"),
        { text: "wrote two" },
        { text: "forked" },
      ],
    });
    const created = await fx.api("POST", "/api/projects/novel/sessions", {});
    const id = ((await created.json()) as Json).session.id as string;
    await prompt(id, "write one");
    const transcript = async (sid: string) =>
      ((await (await fx.api("GET", `/api/sessions/${sid}/transcript`)).json()) as Json).entries as Json[];
    const firstEnd = (await transcript(id)).at(-1)?.id as string;
    await prompt(id, "write two");
    const note = () => readFileSync(join(fx.bed.project.root, "notes/a.md"), "utf8");
    expect(note()).toBe("two\n");

    const undo = await fx.api("POST", `/api/sessions/${id}/undo`);
    expect(undo.status).toBe(200);
    expect(((await undo.json()) as Json).reverted).toHaveLength(1);
    expect(note()).toBe("one\n");

    const rewind = await fx.api("POST", `/api/sessions/${id}/rewind`, { to: firstEnd, scope: "both" });
    expect(rewind.status).toBe(200);
    expect(await rewind.json()).toMatchObject({ sessionId: id, leafId: firstEnd });
    expect((await transcript(id)).at(-1)?.id).toBe(firstEnd);

    const fork = await fx.api("POST", `/api/sessions/${id}/fork`, { at: firstEnd });
    expect(fork.status).toBe(201);
    const forkId = ((await fork.json()) as Json).session.id as string;
    expect((await transcript(forkId)).map((e) => e.kind)).toEqual((await transcript(id)).map((e) => e.kind));

    const unknown = await fx.api("POST", `/api/sessions/${id}/rewind`, { to: "99999" });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as Json).error.code).toBe("not_found");
    const bad = await fx.api("POST", `/api/sessions/${id}/rewind`, { to: firstEnd, scope: "everything" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error).toMatchObject({ code: "invalid_input" });
    const noSession = await fx.api("POST", "/api/sessions/4242/fork", { at: firstEnd });
    expect(noSession.status).toBe(404);
  });
});
