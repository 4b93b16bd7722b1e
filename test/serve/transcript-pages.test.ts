import { afterEach, expect, it } from "vitest";
import { type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
afterEach(async () => {
  await fx.close();
});

interface Page {
  entries: { id: string; kind: string; data: { text?: string } }[];
  older: string | null;
  newer: string | null;
}

it("the transcript route pages the branch by cursor, and refuses cursors it cannot follow", async () => {
  fx = await serveFixture({ script: [{ text: "unused" }] });
  const store = fx.hub.store;
  const newSession = async () =>
    ((await (await fx.api("POST", "/api/projects/novel/sessions", {})).json()) as { session: { id: string } })
      .session.id;
  const id = await newSession();
  for (let i = 0; i < 12; i++) store.append(id, { kind: "user", data: { text: `m${i}` } });
  const get = async (query: string) => {
    const res = await fx.api("GET", `/api/sessions/${id}/transcript${query}`);
    return { status: res.status, body: (await res.json()) as Page & { error?: { code: string } } };
  };
  const first = (await get("?limit=5")).body;
  expect(first.entries.map((e) => e.data.text)).toEqual(["m7", "m8", "m9", "m10", "m11"]);
  expect(first.newer).toBeNull();
  store.append(id, { kind: "user", data: { text: "late" } });
  const older = (await get(`?limit=5&before=${first.older}`)).body;
  expect(older.entries.map((e) => e.data.text)).toEqual(["m2", "m3", "m4", "m5", "m6"]);
  const newer = (await get(`?after=${first.entries[4].id}`)).body;
  expect(newer.entries.map((e) => e.data.text)).toEqual(["late"]);
  expect(newer.newer).toBeNull();
  // Without a limit a page holds 100 at most, and no more than 500 may be asked for.
  expect((await get("")).body.entries).toHaveLength(13);
  const tooMany = await get("?limit=501");
  expect(tooMany.status).toBe(400);
  expect(tooMany.body.error?.code).toBe("invalid_input");
  const both = await get(`?before=${first.older}&after=${first.older}`);
  expect(both.status).toBe(400);
  const other = await newSession();
  const foreign = await fx.api("GET", `/api/sessions/${other}/transcript?before=${first.older}`);
  expect(foreign.status).toBe(404);
});
