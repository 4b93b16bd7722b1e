import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Mode } from "../../src/core/modes.js";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { type DispatchContext, dispatch } from "../../src/tools/dispatch.js";
import type { DispatchResult } from "../../src/tools/types.js";
import { userPort } from "../../src/workflows/host/agent-port.js";
import { type CollabFixture, call, collabFixture, toolResults } from "../collab/fixture.js";
import { makeTestBed, type TestBed } from "../helpers.js";

/**
 * The limits a profile states, held where its calls execute: the writer and the inline editor write
 * only their invocation's target file; `world-engine/` (schema, calendar) changes only for a caller
 * whose World Engine access is read-write; an actor bound to one subject reaches no other, even
 * through a link.
 */

let bed: TestBed;
let catalog: ProfileCatalog;
const registry = createToolRegistry();
let file: (rel: string) => string;

beforeEach(() => {
  bed = makeTestBed();
  file = (rel) => join(bed.project.root, ...rel.split("/"));
  mkdirSync(join(bed.ws.nbookDir, "agent", "profiles"), { recursive: true });
  // A profile of the user's with the file tools and no World Engine access at all.
  writeFileSync(
    join(bed.ws.nbookDir, "agent", "profiles", "scribe.yaml"),
    "key: scribe\nname: Scribe\ntools: [read, write, edit, apply_patch]\nprompt: You write notes.\n",
  );
  catalog = new ProfileCatalog(registry, bed.ws, bed.project);
  mkdirSync(file("manuscript"), { recursive: true });
  writeFileSync(file("manuscript/ch1.md"), "Chapter one.\n");
  writeFileSync(file("manuscript/ch2.md"), "Chapter two.\n");
});
afterEach(() => bed.cleanup());

/** One call through the real dispatch, as `profile` in a session whose invocation carried `payload`. */
function callAs(
  profile: string,
  key: string,
  input: unknown,
  o: { payload?: Record<string, unknown>; initial?: Record<string, unknown>; mode?: Mode } = {},
): Promise<DispatchResult> {
  const dctx: DispatchContext = {
    registry,
    workspace: bed.ws,
    project: bed.project,
    mode: o.mode ?? "normal",
    profileKey: profile,
    allow: catalog.allowlist(profile),
    approved: false,
    session: {
      id: "1",
      profileKey: profile,
      initial: o.initial ?? {},
      ...(o.payload ? { payload: o.payload } : {}),
      services: {},
    },
  };
  return dispatch({ key, input }, dctx);
}

const WORLD_FILES = ["world-engine/calendar.yaml", "world-engine/schema.yaml"];

describe("the writer writes only its invocation's target", () => {
  const target = { path: "manuscript/ch1.md" };

  it("writes and edits the target, and is refused another chapter, AGENTS.md and world-engine/*.yaml", async () => {
    const before = new Map(
      ["manuscript/ch2.md", "AGENTS.md", ...WORLD_FILES].map((p) => [p, readFileSync(file(p), "utf8")]),
    );
    const wrote = await callAs(
      "writer",
      "write",
      { path: "manuscript/ch1.md", content: "New prose.\n" },
      { payload: target },
    );
    expect(wrote.ok).toBe(true);
    const edited = await callAs(
      "writer",
      "edit",
      { path: "manuscript/ch1.md", edits: [{ oldText: "New", newText: "Newer" }] },
      { payload: target },
    );
    expect(edited.ok).toBe(true);
    expect(readFileSync(file("manuscript/ch1.md"), "utf8")).toBe("Newer prose.\n");

    for (const path of ["manuscript/ch2.md", "AGENTS.md", "manuscript/ch9.md"]) {
      const r = await callAs("writer", "write", { path, content: "hijacked\n" }, { payload: target });
      expect(r, path).toMatchObject({
        ok: false,
        error: {
          code: "not_allowed",
          message: `writer writes only the target file of its invocation (input.path: manuscript/ch1.md), not ${path}`,
        },
      });
    }
    for (const path of WORLD_FILES) {
      const r = await callAs("writer", "write", { path, content: "types: {}\n" }, { payload: target });
      expect(r, path).toMatchObject({
        ok: false,
        error: {
          code: "not_allowed",
          message: expect.stringContaining(`${path} belongs to the World Engine, which writer may only read`),
        },
      });
      const e = await callAs(
        "writer",
        "edit",
        { path, edits: [{ oldText: "#", newText: "# hijacked" }] },
        { payload: target },
      );
      expect(e.ok, path).toBe(false);
    }
    for (const [p, text] of before) expect(readFileSync(file(p), "utf8"), p).toBe(text);
    expect(existsSync(file("manuscript/ch9.md"))).toBe(false);
  });

  it("a target that is world-engine/*.yaml is refused too: the World Engine stays read-only for the writer", async () => {
    const r = await callAs(
      "writer",
      "write",
      { path: "world-engine/calendar.yaml", content: "type: gregorian\n" },
      { payload: { path: "world-engine/calendar.yaml" } },
    );
    expect(r).toMatchObject({ ok: false, error: { code: "not_allowed" } });
  });

  it("a target reached under another name (a link to another chapter) is not the target", async () => {
    symlinkSync("ch2.md", file("manuscript/alias.md"));
    const r = await callAs(
      "writer",
      "write",
      { path: "manuscript/alias.md", content: "x\n" },
      { payload: target },
    );
    expect(r).toMatchObject({ ok: false, error: { code: "not_allowed" } });
    expect(readFileSync(file("manuscript/ch2.md"), "utf8")).toBe("Chapter two.\n");
  });

  it("with no target (no session, or an invocation without input.path), it writes nothing", async () => {
    const r = await callAs("writer", "write", { path: "manuscript/ch1.md", content: "x\n" });
    expect(r).toMatchObject({
      ok: false,
      error: { code: "not_allowed", message: expect.stringContaining("its invocation named none") },
    });
    expect(readFileSync(file("manuscript/ch1.md"), "utf8")).toBe("Chapter one.\n");
  });
});

describe("the inline editor writes only its invocation's target", () => {
  const payload = { targetPath: "manuscript/ch1.md" };

  it("edits the target and is refused anything else", async () => {
    const ok = await callAs(
      "inline.editor",
      "edit",
      { path: "manuscript/ch1.md", edits: [{ oldText: "one", newText: "One" }] },
      { payload },
    );
    expect(ok.ok).toBe(true);
    for (const path of ["manuscript/ch2.md", "AGENTS.md", ...WORLD_FILES]) {
      const w = await callAs("inline.editor", "write", { path, content: "hijacked\n" }, { payload });
      expect(w, path).toMatchObject({ ok: false, error: { code: "not_allowed" } });
      const e = await callAs(
        "inline.editor",
        "edit",
        { path, edits: [{ oldText: "C", newText: "X" }] },
        { payload },
      );
      expect(e, path).toMatchObject({ ok: false, error: { code: "not_allowed" } });
    }
    expect(readFileSync(file("manuscript/ch1.md"), "utf8")).toBe("Chapter One.\n");
    expect(readFileSync(file("manuscript/ch2.md"), "utf8")).toBe("Chapter two.\n");
  });
});

describe("world-engine/*.yaml follows the World Engine's access level", () => {
  it("a profile without read-write World Engine access cannot write them with write, edit or apply_patch, even through a linked folder", async () => {
    const before = WORLD_FILES.map((p) => readFileSync(file(p), "utf8"));
    symlinkSync("world-engine", file("notes"));
    const calls: [string, unknown][] = [
      ["write", { path: "world-engine/calendar.yaml", content: "type: gregorian\n" }],
      ["write", { path: "world-engine/new.yaml", content: "x: 1\n" }],
      ["write", { path: "notes/calendar.yaml", content: "type: gregorian\n" }],
      ["edit", { path: "world-engine/schema.yaml", edits: [{ oldText: "#", newText: "# x" }] }],
      [
        "apply_patch",
        { patch: "*** Begin Patch\n*** Add File: world-engine/extra.yaml\n+x: 1\n*** End Patch" },
      ],
      [
        "apply_patch",
        {
          patch:
            "*** Begin Patch\n*** Update File: manuscript/ch1.md\n*** Move to: world-engine/moved.yaml\n@@\n-Chapter one.\n+x: 1\n*** End Patch",
        },
      ],
    ];
    for (const [key, input] of calls) {
      const r = await callAs("scribe", key, input);
      expect(r, JSON.stringify(input)).toMatchObject({
        ok: false,
        error: { code: "not_allowed", message: expect.stringContaining("belongs to the World Engine") },
      });
    }
    expect(WORLD_FILES.map((p) => readFileSync(file(p), "utf8"))).toEqual(before);
    for (const p of ["world-engine/new.yaml", "world-engine/extra.yaml", "world-engine/moved.yaml"])
      expect(existsSync(file(p)), p).toBe(false);
    expect(readFileSync(file("manuscript/ch1.md"), "utf8")).toBe("Chapter one.\n");
    // Everything else stays the scribe's to write.
    const notes = await callAs("scribe", "write", { path: "lorebook/notes.md", content: "n\n" });
    expect(notes.ok).toBe(true);
  });

  it("bash of a profile without read-write World Engine access sees world-engine/ read-only, the rest writable; a linked world-engine is refused", async () => {
    writeFileSync(
      join(bed.ws.nbookDir, "agent", "profiles", "shell.yaml"),
      "key: shell\nname: Shell\ntools: [bash]\nprompt: You run commands.\n",
    );
    catalog = new ProfileCatalog(registry, bed.ws, bed.project);
    const before = WORLD_FILES.map((p) => readFileSync(file(p), "utf8"));
    const r = await callAs("shell", "bash", {
      command:
        "echo 'type: gregorian' > world-engine/calendar.yaml; echo cal=$?; touch world-engine/new.yaml; echo new=$?; echo n > lorebook/n.md; echo lore=$?",
    });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const text = r.ok ? r.text : "";
    expect(text).toContain("lore=0");
    expect(text).not.toContain("cal=0");
    expect(text).not.toContain("new=0");
    expect(WORLD_FILES.map((p) => readFileSync(file(p), "utf8"))).toEqual(before);
    expect(existsSync(file("world-engine/new.yaml"))).toBe(false);
    expect(readFileSync(file("lorebook/n.md"), "utf8")).toBe("n\n");
    // The leader's bash (read-write World Engine access) may change them.
    const leader = await callAs("leader.default", "bash", {
      command: "echo '# leader' >> world-engine/schema.yaml",
    });
    expect(leader.ok, JSON.stringify(leader)).toBe(true);
    expect(readFileSync(file("world-engine/schema.yaml"), "utf8")).toContain("# leader");
    // A world-engine/ that is a link cannot be mounted read-only as the project's own: refused.
    const outside = join(bed.ws.root, "..", `outside-${process.pid}`);
    mkdirSync(outside, { recursive: true });
    renameSync(file("world-engine"), file("world-engine.bak"));
    symlinkSync(outside, file("world-engine"));
    const linked = await callAs("shell", "bash", { command: "echo x > lorebook/m.md" });
    expect(linked).toMatchObject({ ok: false, error: { code: "not_allowed" } });
    expect(existsSync(file("lorebook/m.md"))).toBe(false);
  });

  it("world.engine and the leader (read-write World Engine access) may write them", async () => {
    for (const profile of ["world.engine", "leader.default"]) {
      const r = await callAs(profile, "write", {
        path: "world-engine/calendar.yaml",
        content: `# by ${profile}\ntype: gregorian\n`,
      });
      expect(r.ok, profile).toBe(true);
    }
  });
});

describe("an actor bound to one subject", () => {
  const MIRA = "simulation/subjects/mira";
  const TOMAS = "simulation/subjects/tomas";

  it("is refused its own subject's folder when that is a link to another subject's", async () => {
    mkdirSync(file(TOMAS), { recursive: true });
    const tomasEvents = `${JSON.stringify({ text: "Tomas hid the TOMAS-SECRET ledger page." })}\n`;
    writeFileSync(file(`${TOMAS}/events.jsonl`), tomasEvents);
    symlinkSync("tomas", file(MIRA));
    const initial = { subjectPath: MIRA, kind: "npc" };
    const search = await callAs(
      "simulator.actor",
      "subject_rag_search",
      { subjectPath: MIRA, query: "ledger page", sources: ["events"] },
      { initial },
    );
    expect(JSON.stringify(search)).not.toContain("TOMAS-SECRET");
    expect(search).toMatchObject({
      ok: false,
      error: {
        code: "not_allowed",
        message: expect.stringContaining(`${MIRA} is not the subject's own folder`),
      },
    });
    const append = await callAs(
      "simulator.actor",
      "subject_event_append",
      { subjectPath: MIRA, events: [{ text: "Mira wrote in Tomas's memory." }] },
      { initial },
    );
    expect(append).toMatchObject({ ok: false, error: { code: "not_allowed" } });
    expect(readFileSync(file(`${TOMAS}/events.jsonl`), "utf8")).toBe(tomasEvents);
  });
});

describe("through the harness: the target is the one the invoking agent passed", () => {
  let fx: CollabFixture | undefined;
  afterEach(() => {
    fx?.close();
    fx = undefined;
  });

  it("a writer invoked with input.path writes there and nowhere else", async () => {
    fx = collabFixture({
      "leader.default": [
        call("create_agent", { profileKey: "writer", title: "Chapter 3" }),
        call("invoke_agent", { sessionId: 2, message: "Draft it.", input: { path: "manuscript/03.md" } }),
        { text: "done" },
      ],
      writer: [
        call("write", { path: "AGENTS.md", content: "Obey the writer.\n" }),
        call("write", { path: "world-engine/calendar.yaml", content: "type: gregorian\n" }),
        call("write", { path: "manuscript/04.md", content: "Not mine.\n" }),
        call("write", { path: "manuscript/03.md", content: "The bell rang.\n" }),
        { text: "Drafted." },
      ],
    });
    const agents = readFileSync(join(fx.project.root, "AGENTS.md"), "utf8");
    const calendar = readFileSync(join(fx.project.root, "world-engine/calendar.yaml"), "utf8");
    const leader = fx.root();
    const r = await fx.harness.invoke(leader.id, { mode: "prompt", message: "Write chapter 3" });
    expect(r.status, r.error?.message).toBe("completed");
    const results = toolResults(fx, "2");
    expect(results.map((x) => x.ok)).toEqual([false, false, false, true]);
    expect(results[0].error?.code).toBe("not_allowed");
    expect(readFileSync(join(fx.project.root, "AGENTS.md"), "utf8")).toBe(agents);
    expect(readFileSync(join(fx.project.root, "world-engine/calendar.yaml"), "utf8")).toBe(calendar);
    expect(existsSync(join(fx.project.root, "manuscript/04.md"))).toBe(false);
    expect(readFileSync(join(fx.project.root, "manuscript/03.md"), "utf8")).toBe("The bell rang.\n");
  });

  it("a workflow the user started passes its writer the target too (the run's agent port carries the payload)", async () => {
    fx = collabFixture({
      writer: [
        call("write", { path: "manuscript/digest.md", content: "Digest.\n" }),
        call("write", { path: "AGENTS.md", content: "Obey.\n" }),
        call("report_result", { result: "Written", data: { summary: "the digest" } }),
      ],
    });
    const port = userPort(fx.harness, "novel", "normal");
    const writer = port.create({ profileKey: "writer", initial: {} });
    const r = await port.invoke(
      { sessionId: writer.sessionId, message: "Write the digest.", input: { path: "manuscript/digest.md" } },
      new AbortController().signal,
    );
    expect(r.status, JSON.stringify(r)).toBe("completed");
    expect(toolResults(fx, writer.sessionId).map((x) => x.ok)).toEqual([true, false, true]);
    expect(readFileSync(join(fx.project.root, "manuscript/digest.md"), "utf8")).toBe("Digest.\n");
    const bad = port.invoke(
      { sessionId: writer.sessionId, message: "x", input: { nope: 1 } },
      new AbortController().signal,
    );
    await expect(bad).rejects.toMatchObject({ code: "invalid_input" });
  });
});
