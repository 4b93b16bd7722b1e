// Inline AI over the API on a scripted model: a selection's alternatives are asked of a read-only
// inline.editor session with the selection fenced and located in the chapter, and read back parsed;
// nothing is written to the file. The answer's parser reads partial (streaming) answers too.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { payloadOf } from "../../src/collab/payload.js";
import { parseAlternatives } from "../../src/serve/inline-alternatives.js";
import { type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const CHAPTER = "manuscript/01-fog/index.md";
const TEXT = "# Fog\n\nThe fog lay on the harbour like a grey wool blanket, thick and heavy and wet.\n";
const PASSAGE = "The fog lay on the harbour like a grey wool blanket, thick and heavy and wet.";
const ANSWER =
  "<alternative>\nFog smothered the harbour.\n</alternative>\n<alternative>The harbour lay under wet grey fog.</alternative>\n<alternative>Grey fog, thick as wool.</alternative>";

type Json = Record<string, unknown>;

function writeChapter(f: ServeFixture) {
  const file = join(f.bed.project.root, CHAPTER);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, TEXT);
  return file;
}

describe("inline AI", () => {
  it("asks a read-only inline editor for alternatives and answers them parsed; the file is untouched", async () => {
    fx = await serveFixture({
      script: [
        {
          text: ANSWER,
          toolCalls: [{ name: "report_result", input: { result: "Three shorter versions." } }],
          expect: { lastUser: "Shorten the passage", system: "inline editor" },
        },
      ],
    });
    const file = writeChapter(fx);
    const res = await fx.api("POST", "/api/projects/novel/inline", {
      path: CHAPTER,
      selection: PASSAGE,
      action: "shorten",
    });
    expect(res.status, await res.clone().text()).toBe(202);
    const { sessionId } = (await res.json()) as { sessionId: string };
    await fx.hub.idle();

    const state = await fx.api("GET", `/api/projects/novel/inline/${sessionId}`);
    expect(state.status).toBe(200);
    expect(await state.json()).toEqual({
      sessionId,
      running: false,
      status: "completed",
      alternatives: [
        "Fog smothered the harbour.",
        "The harbour lay under wet grey fog.",
        "Grey fog, thick as wool.",
      ],
      error: null,
    });
    const session = fx.hub.store.session(sessionId);
    expect(session).toMatchObject({ profileKey: "inline.editor", mode: "discuss", project: "novel" });
    const user = fx.hub.store.page(sessionId).entries.find((e) => e.kind === "user");
    const asked = user?.kind === "user" ? user.data.text : "";
    expect(payloadOf(asked)).toMatchObject({
      task: "condense",
      targetPath: CHAPTER,
      references: [
        {
          ref: "selection",
          path: CHAPTER,
          match: "unique",
          range: { startLine: 3, endLine: 3 },
          text: PASSAGE,
        },
      ],
    });
    // The request: the selection fenced as file text, with where it is.
    expect(asked).toContain("lines 3–3");
    expect(asked).toMatch(/<<<untrusted-selection [0-9a-f]+>>>/);
    expect(readFileSync(file, "utf8")).toBe(TEXT);
  });

  it("refuses an own instruction left empty, an unknown action, and another project's session", async () => {
    fx = await serveFixture({ script: [{ text: ANSWER }] });
    writeChapter(fx);
    const empty = await fx.api("POST", "/api/projects/novel/inline", {
      path: CHAPTER,
      selection: PASSAGE,
      action: "instruction",
      instruction: "  ",
    });
    expect(empty.status).toBe(400);
    const body = (await empty.json()) as { error: { code: string; fields: { pointer: string }[] } };
    expect(body.error.code).toBe("invalid_input");
    expect(body.error.fields.map((f) => f.pointer)).toContain("/body/instruction");
    const unknown = await fx.api("POST", "/api/projects/novel/inline", {
      path: CHAPTER,
      selection: PASSAGE,
      action: "translate",
    });
    expect(unknown.status).toBe(400);
    const chat = await fx.api("POST", "/api/projects/novel/sessions", {});
    const { session } = (await chat.json()) as { session: Json };
    const notInline = await fx.api("GET", `/api/projects/novel/inline/${session.id}`);
    expect(notInline.status).toBe(404);
  });

  it("names a selection no longer in the saved file as not found, and still asks", async () => {
    fx = await serveFixture({
      script: [
        {
          text: "Here they are.",
          toolCalls: [{ name: "report_result", input: { result: ANSWER } }],
          expect: { lastUser: "not found as is" },
        },
      ],
    });
    writeChapter(fx);
    const res = await fx.api("POST", "/api/projects/novel/inline", {
      path: CHAPTER,
      selection: "A sentence typed but not saved.",
      action: "instruction",
      instruction: "Make it rhyme",
    });
    expect(res.status).toBe(202);
    const { sessionId } = (await res.json()) as { sessionId: string };
    await fx.hub.idle();
    const state = (await (await fx.api("GET", `/api/projects/novel/inline/${sessionId}`)).json()) as Json;
    expect(state.alternatives).toHaveLength(3);
    const user = fx.hub.store.page(sessionId).entries.find((e) => e.kind === "user");
    expect(payloadOf(user?.kind === "user" ? user.data.text : "")).toMatchObject({
      instruction: "Make it rhyme",
      references: [{ match: "unknown" }],
    });
  });
});

describe("parseAlternatives", () => {
  it("reads closed alternatives, keeps at most three, and an open one as it streams", () => {
    expect(parseAlternatives("<alternative>One</alternative>\n<alternative>Tw")).toEqual({
      alternatives: ["One"],
      open: "Tw",
    });
    expect(parseAlternatives("<alternative>One</alternative><alternative>Two</alt")).toEqual({
      alternatives: ["One"],
      open: "Two",
    });
    const four = ["a", "b", "c", "d"].map((x) => `<alternative>${x}</alternative>`).join("");
    expect(parseAlternatives(four)).toEqual({ alternatives: ["a", "b", "c"], open: null });
    expect(parseAlternatives("No tags at all.")).toEqual({ alternatives: [], open: null });
    expect(parseAlternatives("<alternative>\n  Line one\nLine two\n</alternative>").alternatives).toEqual([
      "  Line one\nLine two",
    ]);
  });
});
