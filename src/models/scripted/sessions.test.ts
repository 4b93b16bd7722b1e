import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { generateText } from "ai";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { NbError } from "../../core/errors.js";
import { createModelResolver } from "../resolver.js";
import { parseScript } from "./format.js";
import { scriptedModel, scriptedModelFromFile } from "./model.js";

/** The text a model answers to one call. */
async function say(model: LanguageModelV3, prompt = "go"): Promise<string> {
  return (await generateText({ model, prompt })).text;
}

/** The error a call fails with. */
async function failure(model: LanguageModelV3, prompt = "go"): Promise<NbError> {
  const e = await generateText({ model, prompt }).catch((err: unknown) => err);
  expect(e).toBeInstanceOf(NbError);
  return e as NbError;
}

describe("a script with turns keyed by profile or session", () => {
  it("answers each profile from its own turns, each keeping its own place", async () => {
    const model = scriptedModel({
      profiles: {
        "leader.default": [{ text: "leader 1" }, { text: "leader 2" }],
        writer: [{ text: "writer 1" }, { text: "writer 2" }],
      },
    });
    const leader = model.forCaller({ sessionId: "1", profileKey: "leader.default" });
    const writer = model.forCaller({ sessionId: "2", profileKey: "writer" });
    expect(await say(leader)).toBe("leader 1");
    expect(await say(writer)).toBe("writer 1");
    expect(await say(writer)).toBe("writer 2");
    expect(await say(leader)).toBe("leader 2");
    expect(model.remaining).toBe(0);
  });

  it("sessions of one profile share its turns, in call order", async () => {
    const model = scriptedModel({ profiles: { writer: [{ text: "first" }, { text: "second" }] } });
    expect(await say(model.forCaller({ sessionId: "2", profileKey: "writer" }))).toBe("first");
    expect(await say(model.forCaller({ sessionId: "3", profileKey: "writer" }))).toBe("second");
  });

  it("a session's own turns win over its profile's, which win over the top-level turns", async () => {
    const model = scriptedModel({
      turns: [{ text: "top-level" }],
      profiles: { writer: [{ text: "any writer" }] },
      sessions: { "3": [{ text: "session 3 only" }] },
    });
    expect(await say(model.forCaller({ sessionId: "3", profileKey: "writer" }))).toBe("session 3 only");
    expect(await say(model.forCaller({ sessionId: "2", profileKey: "writer" }))).toBe("any writer");
    expect(await say(model.forCaller({ sessionId: "4", profileKey: "director" }))).toBe("top-level");
  });

  it("a call that names no caller is answered from the top-level turns", async () => {
    const model = scriptedModel({
      turns: [{ text: "plain" }],
      profiles: { writer: [{ text: "writer" }] },
    });
    expect(await say(model)).toBe("plain");
    expect(await say(model.forCaller({ profileKey: "writer" }))).toBe("writer");
  });

  it("the same caller always gets the same model object", () => {
    const model = scriptedModel({ profiles: { writer: [{ text: "w" }] } });
    const a = model.forCaller({ sessionId: "2", profileKey: "writer" });
    expect(model.forCaller({ sessionId: "2", profileKey: "writer" })).toBe(a);
    expect(model.forCaller({ sessionId: "3", profileKey: "writer" })).not.toBe(a);
  });

  it("a session with no scripted turn left fails with limit_exceeded naming the session and its section", async () => {
    const model = scriptedModel({
      profiles: { "leader.default": [{ text: "l" }], writer: [{ text: "w1" }, { text: "w2" }] },
    });
    const writer = model.forCaller({ sessionId: "2", profileKey: "writer" });
    await say(writer);
    await say(writer);
    const err = await failure(writer);
    expect(err.code).toBe("limit_exceeded");
    expect(err.message).toBe(
      'Scripted model "script" has no turn 3 for session 2 (profile writer): the script\'s profiles.writer has 2 turn(s) and the conversation asked for more',
    );
    // The other section is untouched by the writer running out.
    expect(await say(model.forCaller({ sessionId: "1", profileKey: "leader.default" }))).toBe("l");
  });

  it("a session that no section matches, in a script without top-level turns, is told which sections exist", async () => {
    const model = scriptedModel({
      model: "demo",
      profiles: { writer: [{ text: "w" }] },
      sessions: { "1": [{ text: "s" }] },
    });
    const err = await failure(model.forCaller({ sessionId: "5", profileKey: "director" }));
    expect(err.code).toBe("limit_exceeded");
    expect(err.message).toBe(
      'Scripted model "demo" has no turns for session 5 (profile director): the script has no top-level turns and no section for it (it has profiles.writer, sessions.1)',
    );
  });

  it("a failed expectation names the section of the turn", async () => {
    const model = scriptedModel({
      profiles: { writer: [{ text: "x", expect: { lastUser: "chapterId" } }] },
    });
    const err = await failure(model.forCaller({ sessionId: "2", profileKey: "writer" }), "no brief here");
    expect(err.code).toBe("conflict");
    expect(err.message).toContain(
      'Scripted turn 1 (profiles.writer): expected the last user message to contain "chapterId"',
    );
  });

  it("a section first called by a resumed session starts after the answers already in its history", async () => {
    const model = scriptedModel({
      profiles: {
        "leader.default": [{ text: "l1" }, { text: "l2" }],
        writer: [{ text: "w1" }, { text: "w2" }, { text: "w3" }],
      },
    });
    expect(await say(model.forCaller({ sessionId: "1", profileKey: "leader.default" }))).toBe("l1");
    const resumed = await generateText({
      model: model.forCaller({ sessionId: "2", profileKey: "writer" }),
      messages: [
        { role: "user", content: "draft" },
        { role: "assistant", content: "w1" },
        { role: "user", content: "more" },
        { role: "assistant", content: "w2" },
        { role: "user", content: "finish" },
      ],
    });
    expect(resumed.text).toBe("w3");
  });

  it("a numeric startAt applies to the section of the first call only", async () => {
    const model = scriptedModel(
      {
        profiles: {
          "leader.default": [{ text: "l1" }, { text: "l2" }],
          writer: [{ text: "w1" }, { text: "w2" }],
        },
      },
      { startAt: 1 },
    );
    expect(await say(model.forCaller({ sessionId: "2", profileKey: "writer" }))).toBe("w2");
    expect(await say(model.forCaller({ sessionId: "1", profileKey: "leader.default" }))).toBe("l1");
    expect(() => scriptedModel({ profiles: { writer: [{ text: "w" }] } }, { startAt: -1 })).toThrow(
      /startAt/,
    );
  });
});

describe("the keyed script format", () => {
  it("needs turns somewhere, and says so with a pointer", () => {
    try {
      parseScript({ model: "demo" });
      expect.unreachable();
    } catch (e) {
      expect((e as NbError).code).toBe("invalid_input");
      expect((e as NbError).message).toContain("/turns");
    }
    expect(() => parseScript({ profiles: { writer: [] } })).toThrow(/\/profiles\/writer/);
  });

  it("rejects a session key that is not a session id, and unknown fields inside a section", () => {
    try {
      parseScript({ sessions: { leader: [{ text: "x" }] }, profiles: { writer: [{ txt: "typo" }] } });
      expect.unreachable();
    } catch (e) {
      const pointers = ((e as NbError).fields ?? []).map((f) => f.pointer);
      expect(pointers).toContain("/sessions/leader");
      expect(pointers).toContain("/profiles/writer/0/txt");
    }
  });

  it("reads YAML with numeric session keys", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nb-keyed-"));
    const file = join(dir, "s.yaml");
    writeFileSync(file, "sessions:\n  2:\n    - text: two\nprofiles:\n  writer:\n    - text: w\n");
    const model = scriptedModelFromFile(file);
    expect(await say(model.forCaller({ sessionId: "2", profileKey: "writer" }))).toBe("two");
    expect(parseScript(parseYaml("sessions:\n  7: [{ text: x }]\n")).sessions).toHaveProperty("7");
  });

  it("a --script resolver hands each session its own view of one keyed script", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nb-keyed-"));
    const file = join(dir, "s.yaml");
    writeFileSync(file, "profiles:\n  leader.default: [{ text: lead }]\n  writer: [{ text: draft }]\n");
    const resolve = createModelResolver({ workspaceRoot: dir, script: file });
    const leader = resolve(undefined, "leader.default", "1");
    const writer = resolve("scripted/s.yaml", "writer", "2");
    expect(writer.ref).toBe("scripted/s.yaml");
    expect(await say(writer.model)).toBe("draft");
    expect(await say(leader.model)).toBe("lead");
    expect(resolve(undefined, "writer", "2").model).toBe(writer.model);
  });
});
