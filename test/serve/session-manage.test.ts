// The session routes the workbench's session list uses: rename, archive/restore and delete, each
// answer held to its declared schema by the fixture; deleting refuses what would lose a record.
import { afterEach, describe, expect, it } from "vitest";
import { type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
afterEach(async () => {
  await fx.close();
});

const create = async (title: string) => {
  const res = await fx.api("POST", "/api/projects/novel/sessions", { title });
  return ((await res.json()) as { session: { id: string } }).session.id;
};

describe("session rename, archive and delete over HTTP", () => {
  it("renames, archives (still listed, marked), restores and deletes a session", async () => {
    fx = await serveFixture({ script: [{ text: "unused" }] });
    const id = await create("Draft");
    const renamed = await fx.api("PUT", `/api/sessions/${id}/title`, { title: "  First pass " });
    expect(((await renamed.json()) as { session: { title: string } }).session.title).toBe("First pass");

    const archived = await fx.api("PUT", `/api/sessions/${id}/archived`, { archived: true });
    expect(((await archived.json()) as { session: { status: string } }).session.status).toBe("archived");
    const list = (await (await fx.api("GET", "/api/projects/novel/sessions")).json()) as {
      sessions: { id: string; status: string }[];
      ephemeral: string[];
    };
    expect(list.sessions.find((s) => s.id === id)?.status).toBe("archived");
    expect(list.ephemeral).toEqual([]);
    // An archived session takes no more messages.
    const prompt = await fx.api("POST", `/api/sessions/${id}/prompt`, { message: "Go on" });
    expect(prompt.status).toBe(409);

    const restored = await fx.api("PUT", `/api/sessions/${id}/archived`, { archived: false });
    expect(((await restored.json()) as { session: { status: string } }).session.status).toBe("idle");
    const notArchived = await fx.api("DELETE", `/api/sessions/${id}`);
    expect(notArchived.status).toBe(409);

    await fx.api("PUT", `/api/sessions/${id}/archived`, { archived: true });
    const deleted = await fx.api("DELETE", `/api/sessions/${id}`);
    expect(await deleted.json()).toEqual({ deleted: id });
    expect((await fx.api("GET", `/api/sessions/${id}`)).status).toBe(404);
  });

  it("refuses to delete a session that made model calls, and a bad title", async () => {
    fx = await serveFixture({ script: [{ text: "Hello." }] });
    const id = await create("Talked");
    await fx.api("POST", `/api/sessions/${id}/prompt`, { message: "Hi" });
    await fx.hub.idle();
    await fx.api("PUT", `/api/sessions/${id}/archived`, { archived: true });
    const r = await fx.api("DELETE", `/api/sessions/${id}`);
    expect(r.status).toBe(409);
    expect(((await r.json()) as { error: { message: string } }).error.message).toContain("model call");
    const long = await fx.api("PUT", `/api/sessions/${id}/title`, { title: "x".repeat(201) });
    expect(long.status).toBe(400);
    expect(
      ((await long.json()) as { error: { fields: { pointer: string }[] } }).error.fields[0].pointer,
    ).toBe("/body/title");
  });
});
