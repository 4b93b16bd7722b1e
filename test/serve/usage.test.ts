import { afterEach, describe, expect, it } from "vitest";
import { type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
afterEach(async () => {
  await fx.close();
});

type Json = Record<string, any>;

describe("what each call was sent and cost, over the API", () => {
  it("answers the manifest of a call, the session's and project's usage, and compacts on request", async () => {
    fx = await serveFixture({
      script: [
        { text: "First answer." },
        { text: "Second answer." },
        { text: "Summary: two answers so far." },
      ],
    });
    const created = (await (await fx.api("POST", "/api/projects/novel/sessions", {})).json()) as Json;
    const id = created.session.id as string;
    for (const message of ["one", "two"]) {
      expect((await fx.api("POST", `/api/sessions/${id}/prompt`, { message })).status).toBe(202);
      await fx.hub.idle();
    }

    const ctx = (await (await fx.api("GET", `/api/sessions/${id}/context`)).json()) as Json;
    expect(ctx.call.seq).toBe(2);
    expect(ctx.calls.map((c: Json) => c.seq)).toEqual([1, 2]);
    expect(ctx.call.manifest.sections.map((s: Json) => s.kind)).toContain("tools");
    expect(ctx.call.usage.inputTokens).toBeGreaterThan(0);
    expect(ctx.usage.calls).toBe(2);
    const first = (await (await fx.api("GET", `/api/sessions/${id}/context?call=1`)).json()) as Json;
    expect(first.call.seq).toBe(1);
    expect((await fx.api("GET", `/api/sessions/${id}/context?call=9`)).status).toBe(404);
    expect((await fx.api("GET", `/api/sessions/${id}/context?call=zero`)).status).toBe(400);

    const usage = (await (await fx.api("GET", `/api/sessions/${id}/usage`)).json()) as Json;
    expect(usage).toMatchObject({
      project: "novel",
      session: { calls: 2 },
      projectDay: { calls: 2 },
      budget: { state: "ok" },
    });
    const project = (await (await fx.api("GET", "/api/projects/novel/usage")).json()) as Json;
    expect(project.usage.calls).toBe(2);
    const past = (await (await fx.api("GET", "/api/projects/novel/usage?day=2020-01-01")).json()) as Json;
    expect(past.usage.calls).toBe(0);

    const compacted = (await (
      await fx.api("POST", `/api/sessions/${id}/compact`, { focus: "the answers" })
    ).json()) as Json;
    expect(compacted).toEqual({ compacted: true, summary: "Summary: two answers so far." });
    const transcript = (await (await fx.api("GET", `/api/sessions/${id}/transcript`)).json()) as Json;
    expect(transcript.entries.at(-1)).toMatchObject({
      kind: "compaction",
      data: { summary: "Summary: two answers so far." },
    });
  });
});
