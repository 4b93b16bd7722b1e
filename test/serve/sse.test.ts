import { afterEach, describe, expect, it } from "vitest";
import { EventLog } from "../../src/serve/sse.js";
import { readEvents, type ServeFixture, serveFixture } from "./fixture.js";

const body = (s: ReadableStream<Uint8Array>) => s;

describe("EventLog", () => {
  it("replays every event after a cursor, then goes on live", async () => {
    const log = new EventLog({ keepAliveMs: 0 });
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push(log.publish("text_delta", { n: i }).id);
    const stream = log.subscribe(ids[1]);
    log.publish("text_delta", { n: 6 });
    const events = await readEvents(body(stream), (e) => e.length >= 4);
    expect(events.map((e) => (e.data as { n: number }).n)).toEqual([3, 4, 5, 6]);
    expect(events.map((e) => e.id)).toEqual([ids[2], ids[3], ids[4], log.lastId]);
  });

  it("opens every stream at once with a comment, before any event exists", async () => {
    const log = new EventLog({ keepAliveMs: 0 });
    const reader = log.subscribe(null).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe(": connected\n\n");
    await reader.cancel();
  });

  it("without a cursor a subscriber gets only new events", async () => {
    const log = new EventLog({ keepAliveMs: 0 });
    log.publish("a", 1);
    const stream = log.subscribe(null);
    log.publish("b", 2);
    const events = await readEvents(stream, (e) => e.length >= 1);
    expect(events).toEqual([{ id: log.lastId, event: "b", data: 2 }]);
  });

  it("a cursor older than what is held, or from another process, gets reset instead of a silent gap", async () => {
    const log = new EventLog({ capacity: 3, keepAliveMs: 0 });
    const first = log.publish("x", 1).id;
    for (let i = 2; i <= 6; i++) log.publish("x", i);
    for (const cursor of [first, "deadbeef.2", "garbage"]) {
      const events = await readEvents(log.subscribe(cursor), (e) => e.length >= 1);
      expect(events[0], cursor).toEqual({ id: log.lastId, event: "reset", data: { reason: "gap" } });
    }
    // The oldest event still held follows directly on this cursor: no gap.
    const justInTime = `${first.split(".")[0]}.3`;
    const events = await readEvents(log.subscribe(justInTime), (e) => e.length >= 3);
    expect(events.map((e) => e.data)).toEqual([4, 5, 6]);
  });

  it("a subscriber that does not read is dropped at its queue bound with overflow, and resumes from its cursor", async () => {
    const log = new EventLog({ maxQueue: 8, capacity: 100, keepAliveMs: 0 });
    const stream = log.subscribe(null);
    for (let i = 1; i <= 50; i++) log.publish("text_delta", { n: i });
    // Dropped once its queue was full: nothing more is held for it, whatever is published.
    expect(log.subscribers).toBe(0);
    for (let i = 51; i <= 1000; i++) log.publish("text_delta", { n: i });
    const events = await readEvents(stream, () => false);
    expect(events.length).toBe(9);
    expect(events.slice(0, 8).map((e) => (e.data as { n: number }).n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events[8]).toEqual({ id: null, event: "overflow", data: { maxQueue: 8 } });
    // Reconnecting with the last id it saw replays what the ring still holds after it.
    const resumed = log.subscribe(events[7].id);
    const replay = await readEvents(resumed, (e) => e.length >= 1);
    expect(replay[0]).toMatchObject({ event: "reset" });
    const log2 = new EventLog({ maxQueue: 8, capacity: 100, keepAliveMs: 0 });
    const slow = log2.subscribe(null);
    for (let i = 1; i <= 20; i++) log2.publish("x", i);
    const seen = await readEvents(slow, () => false);
    const again = await readEvents(log2.subscribe(seen[7].id), (e) => e.length >= 12);
    expect(again.map((e) => e.data)).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
  });

  it("a reader that keeps up is never dropped, however many events pass", async () => {
    const log = new EventLog({ maxQueue: 4, keepAliveMs: 0 });
    const reader = log.subscribe(null).getReader();
    for (let i = 0; i < 200; i++) {
      log.publish("x", i);
      await reader.read();
    }
    expect(log.subscribers).toBe(1);
    await reader.cancel();
    expect(log.subscribers).toBe(0);
  });
});

describe("session streams over the API", () => {
  let fx: ServeFixture;
  afterEach(async () => {
    await fx.close();
  });

  it("GET /api/sessions/:id/events replays from Last-Event-ID (and ?cursor=)", async () => {
    fx = await serveFixture({ script: [{ text: "unused" }] });
    const created = await fx.api("POST", "/api/projects/novel/sessions", { mode: "discuss" });
    const { session } = (await created.json()) as { session: { id: string } };
    const log = fx.hub.sessionLog(session.id);
    const ids = ["one", "two", "three"].map(
      (text) => log.publish("text_delta", { type: "text_delta", text }).id,
    );

    const fromHeader = await fx.api("GET", `/api/sessions/${session.id}/events`, undefined, {
      "last-event-id": ids[0],
    });
    expect(fromHeader.headers.get("content-type")).toContain("text/event-stream");
    const a = await readEvents(fromHeader.body as ReadableStream<Uint8Array>, (e) => e.length >= 2);
    expect(a.map((e) => (e.data as { text: string }).text)).toEqual(["two", "three"]);

    const fromQuery = await fx.api("GET", `/api/sessions/${session.id}/events?cursor=${ids[1]}`);
    const b = await readEvents(fromQuery.body as ReadableStream<Uint8Array>, (e) => e.length >= 1);
    expect(b.map((e) => e.id)).toEqual([ids[2]]);
    expect(log.subscribers).toBe(0);
  });

  it("a tab that stops reading its session stream is dropped at the queue bound; other tabs go on", async () => {
    fx = await serveFixture({ script: [{ text: "unused" }], limits: { maxQueue: 16, keepAliveMs: 0 } });
    const created = await fx.api("POST", "/api/projects/novel/sessions", {});
    const { session } = (await created.json()) as { session: { id: string } };
    const stalled = await fx.api("GET", `/api/sessions/${session.id}/events`);
    const reading = await fx.api("GET", `/api/sessions/${session.id}/events`);
    const log = fx.hub.sessionLog(session.id);
    const reader = (reading.body as ReadableStream<Uint8Array>).getReader();
    for (let i = 0; i < 100; i++) {
      log.publish("text_delta", { type: "text_delta", text: `chunk ${i} ` });
      await reader.read();
    }
    expect(log.subscribers).toBe(1);
    await reader.cancel();
    const events = await readEvents(stalled.body as ReadableStream<Uint8Array>, () => false);
    expect(events.length).toBe(17);
    expect(events.at(-1)?.event).toBe("overflow");
  });

  it("an unknown session has no stream", async () => {
    fx = await serveFixture();
    expect((await fx.api("GET", "/api/sessions/42/events")).status).toBe(404);
  });
});
