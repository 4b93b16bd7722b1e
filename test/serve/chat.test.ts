import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PendingView } from "../../src/harness/events.js";
import { readEvents, type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
afterEach(async () => {
  await fx.close();
});

const CHAPTER = "manuscript/03-the-bell-road/index.md";
const SCRIPT = [
  {
    text: "I'll draft the chapter.",
    toolCalls: [{ name: "write", input: { path: CHAPTER, content: "The bell road ran along the dyke.\n" } }],
  },
  { text: "Drafted chapter three.", expect: { lastToolResult: "Created" } },
];

type Json = Record<string, unknown>;

async function createSession(mode: string): Promise<string> {
  const res = await fx.api("POST", "/api/projects/novel/sessions", { mode });
  expect(res.status).toBe(201);
  return ((await res.json()) as { session: { id: string } }).session.id;
}

describe("a chat over the API on a scripted model, in discuss mode", () => {
  it("streams the turn, stops the write with a diff approval, and an approval runs exactly that write", async () => {
    fx = await serveFixture({ script: SCRIPT });
    const workspaceStream = await fx.api("GET", "/api/events");
    const id = await createSession("discuss");
    const sessionStream = await fx.api("GET", `/api/sessions/${id}/events`);

    const prompt = await fx.api("POST", `/api/sessions/${id}/prompt`, { message: "Draft chapter three" });
    expect(prompt.status).toBe(202);
    expect(["running", "waiting"]).toContain(((await prompt.json()) as Json).status);
    await fx.hub.idle();

    const first = await readEvents(sessionStream.body as ReadableStream<Uint8Array>, (e) =>
      e.some((x) => x.event === "run_end"),
    );
    expect(first.map((e) => e.event)).toEqual([
      "run_start",
      "turn_start",
      "text_delta",
      "usage",
      "tool_call_start",
      "turn_end",
      "approval_required",
      "run_end",
    ]);
    const pending = (first[6].data as { pending: PendingView }).pending;
    expect(pending).toMatchObject({ kind: "write", tool: "write" });
    expect(pending.preview).toContain(`+++ b/${CHAPTER}`);
    expect(pending.preview).toContain("+The bell road ran along the dyke.");
    expect(existsSync(join(fx.bed.project.root, CHAPTER))).toBe(false);

    // What the workbench shows: the waiting session, the approval list, a refused prompt.
    const state = (await (await fx.api("GET", `/api/sessions/${id}`)).json()) as Json;
    expect(state).toMatchObject({ running: false, session: { status: "waiting", mode: "discuss" }, pending });
    const list = (await (await fx.api("GET", "/api/approvals?project=novel")).json()) as { pending: Json[] };
    expect(list.pending).toEqual([{ sessionId: id, project: "novel", ...pending }]);
    const refused = await fx.api("POST", `/api/sessions/${id}/prompt`, { message: "and another" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("conflict");

    const resumed = await fx.api("GET", `/api/sessions/${id}/events`, undefined, {
      "last-event-id": first[first.length - 1].id as string,
    });
    const settle = await fx.api("POST", `/api/sessions/${id}/approvals/${pending.approvalId}`, {
      approved: true,
    });
    expect(settle.status).toBe(202);
    await fx.hub.idle();

    expect(readFileSync(join(fx.bed.project.root, CHAPTER), "utf8")).toBe(
      "The bell road ran along the dyke.\n",
    );
    const second = await readEvents(resumed.body as ReadableStream<Uint8Array>, (e) =>
      e.some((x) => x.event === "run_end"),
    );
    expect(second.find((e) => e.event === "tool_call_end")?.data).toMatchObject({ tool: "write", ok: true });
    expect(second.at(-1)?.data).toMatchObject({
      status: "completed",
      finalMessage: "Drafted chapter three.",
    });

    const ws = await readEvents(workspaceStream.body as ReadableStream<Uint8Array>, (e) =>
      e.some((x) => x.event === "files_changed"),
    );
    expect(ws.map((e) => e.event)).toEqual([
      "session_created",
      "session_status",
      "session_status",
      "session_status",
      "files_changed",
    ]);
    expect(ws.slice(1, 4).map((e) => (e.data as Json).status)).toEqual(["running", "waiting", "running"]);
    // The event carries the changed node itself (its word count counted), so no client refetches the tree.
    expect(ws[4].data).toEqual({
      project: "novel",
      sessionId: id,
      tool: "write",
      paths: [CHAPTER],
      nodes: [
        {
          path: CHAPTER,
          node: expect.objectContaining({ kind: "file", path: CHAPTER, words: expect.any(Number) }),
        },
      ],
    });

    const transcript = (await (await fx.api("GET", `/api/sessions/${id}/transcript`)).json()) as {
      entries: { kind: string; data: Json }[];
      pending: unknown;
    };
    expect(transcript.pending).toBeNull();
    expect(transcript.entries.filter((e) => e.kind === "tool_result").map((e) => e.data.ok)).toEqual([true]);

    // Settled once: a second settle finds nothing to settle.
    const twice = await fx.api("POST", `/api/sessions/${id}/approvals/${pending.approvalId}`, {
      approved: true,
    });
    expect(twice.status).toBe(404);
  });

  it("an approval of a file that changed after the preview writes nothing (conflict, like nbook approve)", async () => {
    fx = await serveFixture({
      script: [
        SCRIPT[0],
        { text: "It changed; I'll look again.", expect: { lastToolResult: "changed after the preview" } },
      ],
    });
    const id = await createSession("discuss");
    await fx.api("POST", `/api/sessions/${id}/prompt`, { message: "Draft chapter three" });
    await fx.hub.idle();
    const { pending } = (await (await fx.api("GET", `/api/sessions/${id}`)).json()) as {
      pending: PendingView;
    };
    // The user writes the chapter by hand before approving.
    await fx.api("PUT", "/api/projects/novel/files/write", {
      path: CHAPTER,
      content: "My own start.\n",
      baseVersion: null,
    });
    await fx.api("POST", `/api/sessions/${id}/approvals/${pending.approvalId}`, { approved: true });
    await fx.hub.idle();
    expect(readFileSync(join(fx.bed.project.root, CHAPTER), "utf8")).toBe("My own start.\n");
    const t = (await (await fx.api("GET", `/api/sessions/${id}/transcript`)).json()) as {
      entries: { kind: string; data: { ok?: boolean; error?: { code: string } } }[];
    };
    const result = t.entries.find((e) => e.kind === "tool_result");
    expect(result?.data).toMatchObject({ ok: false, error: { code: "conflict" } });
  });

  it("a rejection with a reason reaches the model; the run goes on though the tab that started it has gone", async () => {
    fx = await serveFixture({
      script: [SCRIPT[0], { text: "Understood, no writing.", expect: { lastToolResult: "Not yet" } }],
    });
    const id = await createSession("discuss");
    const tab = await fx.api("GET", `/api/sessions/${id}/events`);
    await fx.api("POST", `/api/sessions/${id}/prompt`, { message: "Draft chapter three" });
    // The tab closes right away.
    await (tab.body as ReadableStream<Uint8Array>).cancel();
    await fx.hub.idle();
    expect(fx.hub.sessionLog(id).subscribers).toBe(0);
    const { pending } = (await (await fx.api("GET", `/api/sessions/${id}`)).json()) as {
      pending: PendingView;
    };
    expect(pending.kind).toBe("write");

    const bad = await fx.api("POST", `/api/sessions/${id}/approvals/${pending.approvalId}`, {
      approved: true,
      answer: "yes",
    });
    expect(bad.status).toBe(400);
    const res = await fx.api("POST", `/api/sessions/${id}/approvals/${pending.approvalId}`, {
      approved: false,
      reason: "Not yet",
    });
    expect(res.status).toBe(202);
    await fx.hub.idle();
    expect(existsSync(join(fx.bed.project.root, CHAPTER))).toBe(false);
    const s = (await (await fx.api("GET", `/api/sessions/${id}`)).json()) as { session: { status: string } };
    expect(s.session.status).toBe("idle");
    const t = (await (await fx.api("GET", `/api/sessions/${id}/transcript`)).json()) as {
      entries: { kind: string; data: { text?: string } }[];
    };
    expect(t.entries.filter((e) => e.kind === "assistant").at(-1)?.data.text).toBe("Understood, no writing.");
  });

  it("the mode is changed between runs and announced on the session stream", async () => {
    fx = await serveFixture({ script: [{ text: "hi" }] });
    const id = await createSession("discuss");
    const stream = await fx.api("GET", `/api/sessions/${id}/events`);
    const res = await fx.api("PUT", `/api/sessions/${id}/mode`, { mode: "plan" });
    expect(await res.json()).toEqual({ mode: "plan", changed: true });
    const events = await readEvents(stream.body as ReadableStream<Uint8Array>, (e) => e.length >= 1);
    expect(events[0]).toMatchObject({
      event: "mode_changed",
      data: { from: "discuss", to: "plan", by: "user" },
    });
    const again = await fx.api("PUT", `/api/sessions/${id}/mode`, { mode: "plan" });
    expect(await again.json()).toEqual({ mode: "plan", changed: false });
  });
});

describe("a scripted session continued after nbook serve restarts", () => {
  it("resumes at the turn after the ones it made (as run --session does), and an answered question is not pending again", async () => {
    fx = await serveFixture({
      script: [
        { toolCalls: [{ name: "request_user_input", input: { question: "Which bell rang?" } }] },
        { text: "The third bell, then.", expect: { lastToolResult: "the third" } },
        { text: "Going on from the third bell.", expect: { lastUser: "go on" } },
      ],
    });
    const id = await createSession("normal");
    await fx.api("POST", `/api/sessions/${id}/prompt`, { message: "Ask me" });
    await fx.hub.idle();
    const asked = (await (await fx.api("GET", `/api/sessions/${id}`)).json()) as { pending: PendingView };
    expect(asked.pending).toMatchObject({ kind: "user_input", preview: "Which bell rang?" });
    await fx.api("POST", `/api/sessions/${id}/approvals/${asked.pending.approvalId}`, {
      approved: true,
      answer: "the third",
    });
    await fx.hub.idle();

    await fx.restart();
    const prompt = await fx.api("POST", `/api/sessions/${id}/prompt`, { message: "go on" });
    expect(prompt.status).toBe(202);
    await fx.hub.idle();
    const state = (await (await fx.api("GET", `/api/sessions/${id}`)).json()) as Json;
    expect(state).toMatchObject({ pending: null, session: { status: "idle" } });
    const list = (await (await fx.api("GET", "/api/approvals?project=novel")).json()) as { pending: Json[] };
    expect(list.pending).toEqual([]);
    const transcript = (await (await fx.api("GET", `/api/sessions/${id}/transcript`)).json()) as {
      entries: { kind: string; data: Json }[];
    };
    expect(transcript.entries.filter((e) => e.kind === "assistant").map((e) => e.data.text)).toEqual([
      "",
      "The third bell, then.",
      "Going on from the third bell.",
    ]);
  });
});
