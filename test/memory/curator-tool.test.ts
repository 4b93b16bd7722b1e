import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentCollaboration } from "../../src/collab/plugin.js";
import type { Mode } from "../../src/core/modes.js";
import { EventBus } from "../../src/harness/events.js";
import { Harness } from "../../src/harness/loop.js";
import { SessionStore } from "../../src/harness/store/index.js";
import { type ScriptedLanguageModel, type ScriptedTurn, scriptedModel } from "../../src/models/index.js";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { toolPorts } from "../../src/runtime/ports.js";
import { BUILTIN_TOOLS, createToolRegistry } from "../../src/tools/builtin.js";
import { type Allowlist, type DispatchContext, dispatch } from "../../src/tools/dispatch.js";
import { makeSubjectMemoryUpdateTool } from "../../src/tools/memory/update.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import type { DispatchResult, ToolPreview } from "../../src/tools/types.js";
import type { Project } from "../../src/workspace/project.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { runNbookInProcess } from "../helpers.js";

const KEY = "subject_memory_update";
const MIRA = "simulation/subjects/mira";
const LIN = "simulation/subjects/lin";
const MEMORY = `${MIRA}/memory.jsonl`;
const BEFORE =
  '{"topic":"the pink-haired girl","view":"Sat alone at lunch."}\n{"topic":"the baker","view":"Shouts, never means it."}\n';
const FACTS = ["The pink-haired girl said her name is Lin.", "Lin lent Mira an umbrella."];

/** The merge a curator would answer for FACTS: /0 becomes Lin, the old name kept as an alias. */
const MERGE = [
  {
    op: "replace",
    path: "/0",
    value: {
      topic: "Lin",
      view: "The girl who sat alone at lunch; kind, she lent me her umbrella.",
      aliases: ["the pink-haired girl"],
    },
  },
];
const AFTER =
  '{"topic":"Lin","view":"The girl who sat alone at lunch; kind, she lent me her umbrella.","aliases":["the pink-haired girl"]}\n{"topic":"the baker","view":"Shouts, never means it."}\n';

/** A curator turn that reports `patch`, with checks on what it was asked. */
function curatorTurn(patch: unknown, expect?: ScriptedTurn["expect"]): ScriptedTurn {
  return {
    toolCalls: [
      { name: "report_result", input: { result: "Lin is the pink-haired girl.", data: { patch } } },
    ],
    ...(expect ? { expect } : {}),
  };
}

interface Bed {
  dir: string;
  ws: Workspace;
  project: Project;
  store: SessionStore;
  harness: Harness;
  bus: EventBus;
  catalog: ProfileCatalog;
  registry: ToolRegistry;
  model: ScriptedLanguageModel;
  /** Replace the script every model call of this bed replays. */
  script(turns: ScriptedTurn[]): void;
  call(
    input: unknown,
    o?: {
      mode?: Mode;
      basis?: unknown;
      profile?: string;
      allow?: Allowlist;
      session?: DispatchContext["session"];
    },
  ): Promise<DispatchResult>;
  memory(): string;
}

/**
 * A workspace whose subject_memory_update runs its curator in this bed's harness (the real loop,
 * store and profiles, on a scripted model), so a test can watch the curator run as it happens.
 */
function makeBed(): Bed {
  const dir = mkdtempSync(join(tmpdir(), "nbook-curator-"));
  const ws = Workspace.init(join(dir, "ws"));
  const project = ws.createProject("novel");
  mkdirSync(join(project.root, LIN), { recursive: true });
  mkdirSync(join(project.root, MIRA), { recursive: true });
  writeFileSync(join(project.root, MEMORY), BEFORE);
  writeFileSync(join(project.root, LIN, "memory.jsonl"), '{"topic":"Mira","view":"Quiet."}\n');
  // A profile that may update memory (the leader gets the tool from the coordinator's allowlist).
  writeFileSync(
    join(ws.nbookDir, "agent", "profiles", "keeper.yaml"),
    "key: keeper\nname: Keeper\ntools: [subject_memory_update]\nprompt: You keep the characters' memories.\n",
  );
  const store = SessionStore.forWorkspace(ws);
  const bed = {
    dir,
    ws,
    project,
    store,
    bus: new EventBus(),
    model: scriptedModel([{ text: "unused" }]),
  } as Bed;
  const tool = makeSubjectMemoryUpdateTool(async () => ({ harness: bed.harness, close: () => {} }));
  bed.registry = new ToolRegistry([...BUILTIN_TOOLS.filter((t) => t.key !== KEY), tool]);
  bed.catalog = new ProfileCatalog(bed.registry, ws, project);
  bed.harness = new Harness({
    collaboration: agentCollaboration(),
    ports: toolPorts(),
    workspace: ws,
    store,
    registry: bed.registry,
    catalog: bed.catalog,
    resolveModel: (ref) => ({ ref: ref ?? "scripted/test", model: bed.model, contextWindow: 128_000 }),
    bus: bed.bus,
  });
  bed.script = (turns) => {
    bed.model = scriptedModel(turns);
  };
  bed.call = (input, o = {}) =>
    dispatch(
      { key: KEY, input },
      {
        registry: bed.registry,
        workspace: ws,
        project,
        mode: o.mode ?? "normal",
        profileKey: o.profile ?? null,
        allow: o.allow ?? (o.profile ? bed.catalog.allowlist(o.profile) : "all"),
        ...(o.basis !== undefined ? { approved: true, approvedBasis: o.basis } : {}),
        ...(o.session ? { session: o.session } : {}),
      },
    );
  bed.memory = () => readFileSync(join(project.root, MEMORY), "utf8");
  return bed;
}

let bed: Bed;
beforeEach(() => {
  bed = makeBed();
});
afterEach(() => {
  bed.harness.close();
  bed.ws.close();
  rmSync(bed.dir, { recursive: true, force: true });
});

function ok(r: DispatchResult): { text: string; details?: unknown } {
  if (!r.ok) throw new Error(`expected success: ${r.error.code} ${r.error.message}`);
  return r;
}

function failure(r: DispatchResult): string {
  if (r.ok) throw new Error(`expected an error: ${r.text}`);
  return `${r.error.code}: ${r.error.message}`;
}

const curatorSessions = () => bed.store.listSessions({ profileKey: "memory.curator" });

describe("subject_memory_update: the curator flow", () => {
  it("updated: the curator sees the facts and indexed memories, its patch is validated and written", async () => {
    bed.script([
      curatorTurn(MERGE, {
        system: '/0 {"topic":"the pink-haired girl","view":"Sat alone at lunch."}',
        lastUser: "Fold the facts above",
        tools: ["report_result"],
      }),
    ]);
    const r = ok(await bed.call({ subjectPath: `${MIRA}/`, facts: FACTS }));
    expect(bed.memory()).toBe(AFTER);
    expect(r.text).toBe(
      'updated simulation/subjects/mira/memory.jsonl: added "Lin"; removed "the pink-haired girl" (2 topics). Curator: Lin is the pink-haired girl.',
    );
    expect(r.details).toMatchObject({
      status: "updated",
      subjectPath: MIRA,
      sourcePath: MEMORY,
      attempts: 1,
      summary: "Lin is the pink-haired girl.",
      memoryCount: 2,
    });
    expect(bed.model.calls[0]?.prompt[0]).toMatchObject({ role: "system" });
    expect(JSON.stringify(bed.model.calls[0]?.prompt[0])).toContain(
      "The pink-haired girl said her name is Lin.",
    );
    // The curator ran as an internal, system_only session, kept as a record but closed.
    const [s] = curatorSessions();
    expect(s).toMatchObject({ profileKey: "memory.curator", project: "novel", status: "archived" });
    expect(s?.initial).toEqual({
      subjectPath: MIRA,
      facts: FACTS,
      currentMemories: [
        { topic: "the pink-haired girl", view: "Sat alone at lunch." },
        { topic: "the baker", view: "Shouts, never means it." },
      ],
    });
    expect(() => bed.harness.createSession({ profileKey: "memory.curator", project: "novel" })).toThrow(
      /internal and cannot start a session/,
    );
  });

  it("unchanged: an empty patch writes nothing", async () => {
    bed.script([curatorTurn([])]);
    const r = ok(await bed.call({ subjectPath: MIRA, facts: ["Mira ate an apple."] }));
    expect(r.details).toMatchObject({ status: "unchanged", attempts: 1, memoryCount: 2 });
    expect(r.text).toMatch(/^unchanged: simulation\/subjects\/mira\/memory\.jsonl stays as it is/);
    expect(bed.memory()).toBe(BEFORE);
  });

  it("needs_review: an invalid patch twice leaves memory.jsonl byte-identical; the retry names the problem", async () => {
    // Spaces and an old key order: a rewrite would change the bytes even with the same memories.
    const handWritten =
      '{ "view": "Sat alone at lunch.", "topic": "the pink-haired girl" }\n\n{"topic":"the baker","view":"Shouts, never means it."}';
    writeFileSync(join(bed.project.root, MEMORY), handWritten);
    bed.script([
      curatorTurn([{ op: "replace", path: "/1/view", value: " " }]),
      curatorTurn([{ op: "add", path: "/-", value: { topic: "", view: "x" } }], {
        lastUser: "the resulting memory at /1 is invalid:\n/1/view: must not be empty",
      }),
    ]);
    const r = ok(await bed.call({ subjectPath: MIRA, facts: FACTS }));
    expect(r.details).toMatchObject({
      status: "needs_review",
      attempts: 2,
      reason: "the resulting memory at /2 is invalid:\n/2/topic: must not be empty",
      summary: "Lin is the pink-haired girl.",
    });
    expect(r.text).toMatch(/^needs_review: the curator's patch was refused 2 times/);
    expect(bed.memory()).toBe(handWritten);
    expect(bed.model.calls).toHaveLength(2);
    expect(curatorSessions()).toHaveLength(1);
  });

  it("a second attempt that fixes the patch is written; a failed curator run counts as an attempt", async () => {
    bed.script([{ error: "overloaded" }, curatorTurn(MERGE, { lastUser: "the curator run failed" })]);
    const r = ok(await bed.call({ subjectPath: MIRA, facts: FACTS }));
    expect(r.details).toMatchObject({ status: "updated", attempts: 2 });
    expect(bed.memory()).toBe(AFTER);
  });

  it("conflict: memory.jsonl edited while the curator works is not overwritten", async () => {
    const edited = '{"topic":"the baker","view":"Gave me bread today."}\n';
    bed.bus.on((e) => {
      if (e.type === "turn_start" && bed.store.session(e.sessionId).profileKey === "memory.curator") {
        writeFileSync(join(bed.project.root, MEMORY), edited);
      }
    });
    bed.script([curatorTurn(MERGE)]);
    expect(failure(await bed.call({ subjectPath: MIRA, facts: FACTS }))).toBe(
      "conflict: simulation/subjects/mira/memory.jsonl changed while the curator was working, so nothing was written. Call subject_memory_update again to curate against the memory as it is now.",
    );
    expect(bed.memory()).toBe(edited);
  });

  it("refuses a missing subject and a broken memory.jsonl before any curator runs", async () => {
    expect(failure(await bed.call({ subjectPath: "simulation/subjects/ghost", facts: FACTS }))).toBe(
      "not_found: No subject at simulation/subjects/ghost",
    );
    writeFileSync(join(bed.project.root, MEMORY), '{"topic":"a","view":"x"}\n{"topic":"a","view":"y"}\n');
    expect(failure(await bed.call({ subjectPath: MIRA, facts: FACTS }))).toBe(
      'invalid_input: simulation/subjects/mira/memory.jsonl:2: duplicate topic "a" (first on line 1)',
    );
    expect(failure(await bed.call({ subjectPath: MIRA, facts: [" "] }))).toBe(
      "invalid_input: Invalid input for subject_memory_update:\n/facts/0: must not be empty",
    );
    expect(bed.model.calls).toHaveLength(0);
    expect(curatorSessions()).toHaveLength(0);
  });
});

describe("subject_memory_update in a read-only mode", () => {
  it("stops for approval with the patch and the diff; the approval writes exactly the previewed patch", async () => {
    bed.script([curatorTurn(MERGE)]);
    const input = { subjectPath: MIRA, facts: FACTS };
    const stopped = await bed.call(input, { mode: "discuss" });
    if (stopped.ok || stopped.error.code !== "approval_required") throw new Error("expected an approval");
    // As the store keeps it: plain JSON.
    const preview = JSON.parse(JSON.stringify((stopped.error.details as { preview: ToolPreview }).preview));
    expect(preview.text).toContain(
      'Update simulation/subjects/mira/memory.jsonl: added "Lin"; removed "the pink-haired girl".',
    );
    expect(preview.text).toContain('"path": "/0"');
    expect(preview.text).toContain('-{"topic":"the pink-haired girl","view":"Sat alone at lunch."}');
    expect(preview.text).toContain('+{"topic":"Lin","view":"The girl who sat alone at lunch;');
    expect(preview.basis).toMatchObject({ tool: KEY, sourcePath: MEMORY, patch: MERGE });
    expect(bed.memory()).toBe(BEFORE);

    // The approval replays the shown patch: the curator, which would now answer differently, is not asked again.
    bed.script([curatorTurn([{ op: "remove", path: "/1" }])]);
    const r = ok(await bed.call(input, { mode: "discuss", basis: preview.basis }));
    expect(bed.memory()).toBe(AFTER);
    expect(r.details).toMatchObject({ status: "updated", approved: true, patch: MERGE });
    expect(bed.model.calls).toHaveLength(0);
    expect(curatorSessions()).toHaveLength(1);
  });

  it("an approval after memory.jsonl changed is a conflict and writes nothing; a foreign basis is refused", async () => {
    bed.script([curatorTurn(MERGE)]);
    const input = { subjectPath: MIRA, facts: FACTS };
    const stopped = await bed.call(input, { mode: "plan" });
    if (stopped.ok) throw new Error("expected an approval");
    const basis = (stopped.error.details as { preview: ToolPreview }).preview.basis as Record<
      string,
      unknown
    >;
    const edited = `${BEFORE}{"topic":"the bell","view":"Rings at dusk."}\n`;
    writeFileSync(join(bed.project.root, MEMORY), edited);
    expect(failure(await bed.call(input, { mode: "plan", basis }))).toMatch(
      /^conflict: simulation\/subjects\/mira\/memory\.jsonl changed after the preview the user approved, so nothing was written/,
    );
    expect(
      failure(
        await bed.call(input, { mode: "plan", basis: { ...basis, sourcePath: `${LIN}/memory.jsonl` } }),
      ),
    ).toBe("conflict: The approval does not match this subject_memory_update call; nothing was written");
    expect(failure(await bed.call(input, { mode: "plan", basis: { files: [] } }))).toMatch(
      /^conflict: The approval does not match/,
    );
    expect(bed.memory()).toBe(edited);
  });

  it("a curation that changes nothing needs no approval and runs the curator once", async () => {
    bed.script([curatorTurn([])]);
    const r = ok(await bed.call({ subjectPath: MIRA, facts: ["Mira ate an apple."] }, { mode: "discuss" }));
    expect(r.details).toMatchObject({ status: "unchanged", attempts: 1 });
    bed.script([curatorTurn([{ op: "remove", path: "/9" }]), curatorTurn([{ op: "remove", path: "/9" }])]);
    const n = ok(await bed.call({ subjectPath: MIRA, facts: FACTS }, { mode: "discuss" }));
    expect(n.details).toMatchObject({ status: "needs_review", attempts: 2 });
    expect(bed.model.calls).toHaveLength(2);
    expect(curatorSessions()).toHaveLength(2);
    expect(bed.memory()).toBe(BEFORE);
  });
});

describe("subject_memory_update and who may reach which subject", () => {
  it("an actor bound to one subject may update its own memory and gets not_allowed for another's", async () => {
    const actor = bed.store.createSession({
      profile: bed.catalog.get("simulator.actor"),
      project: "novel",
      initial: { subjectPath: MIRA, kind: "npc" },
    });
    const as = {
      profile: "simulator.actor",
      // The built-in actor's allowlist lacks the tool; the subject rule must hold for one that has it.
      allow: new Map([[KEY, {}]]),
      session: { id: actor.id, profileKey: "simulator.actor", initial: actor.initial, services: {} },
    };
    const lin = readFileSync(join(bed.project.root, LIN, "memory.jsonl"), "utf8");
    expect(failure(await bed.call({ subjectPath: LIN, facts: FACTS }, as))).toBe(
      "not_allowed: simulator.actor plays simulation/subjects/mira and may reach only its own memory, not simulation/subjects/lin",
    );
    expect(readFileSync(join(bed.project.root, LIN, "memory.jsonl"), "utf8")).toBe(lin);
    expect(bed.model.calls).toHaveLength(0);

    bed.script([curatorTurn(MERGE)]);
    ok(await bed.call({ subjectPath: MIRA, facts: FACTS }, as));
    expect(bed.memory()).toBe(AFTER);
    // The curator run is recorded as a child of the session that asked for it, not held as its agent.
    expect(curatorSessions()[0]?.parentSessionId).toBe(actor.id);
    expect(bed.store.childLinks(actor.id)).toEqual([]);
    expect(bed.store.childLinks(actor.id, true)).toHaveLength(1);

    expect(
      failure(await bed.call({ subjectPath: MIRA, facts: FACTS }, { profile: "simulator.actor" })),
    ).toMatch(/^not_allowed: Tool subject_memory_update is not allowed for profile simulator\.actor/);
  });
});

describe("subject_memory_update through an agent session", () => {
  it("a discuss-mode session waits on the previewed update; approving it writes that patch and the run goes on", async () => {
    bed.script([
      { toolCalls: [{ name: KEY, input: { subjectPath: MIRA, facts: FACTS } }] },
      curatorTurn(MERGE, { system: "You curate one subject's memory" }),
      {
        text: "Mira now remembers Lin.",
        expect: { lastToolResult: 'updated simulation/subjects/mira/memory.jsonl: added "Lin"' },
      },
    ]);
    const s = bed.harness.createSession({ profileKey: "keeper", project: "novel", mode: "discuss" });
    const r = await bed.harness.invoke(s.id, {
      mode: "prompt",
      message: "Remember what Mira learned today.",
    });
    expect(r.status, r.error?.message).toBe("waiting");
    expect(r.pending?.tool).toBe(KEY);
    expect(r.pending?.preview).toContain('+{"topic":"Lin"');
    expect(bed.memory()).toBe(BEFORE);
    const [curator] = curatorSessions();
    expect(curator?.parentSessionId).toBe(s.id);

    const done = await bed.harness.settle(s.id, r.pending?.approvalId ?? "", { approved: true });
    expect(done.status, done.error?.message).toBe("completed");
    expect(done.finalMessage).toBe("Mira now remembers Lin.");
    expect(bed.memory()).toBe(AFTER);
    // Parent, curator, parent: the approval did not run the curator again.
    expect(bed.model.calls).toHaveLength(3);
    expect(curatorSessions()).toHaveLength(1);
  });
});

describe("subject_memory_update on the configured models", () => {
  it("runs the curator on the model the config gives memory.curator (here a scripted provider)", async () => {
    const registry = createToolRegistry();
    const call = () =>
      dispatch(
        { key: KEY, input: { subjectPath: MIRA, facts: FACTS } },
        {
          registry,
          workspace: bed.ws,
          project: bed.project,
          mode: "normal",
          profileKey: null,
          allow: "all",
          ports: toolPorts(),
        },
      );
    expect(failure(await call())).toMatch(/^config_error: /);
    expect(bed.memory()).toBe(BEFORE);
    // The model is resolved before the curator session is created: nothing is left behind.
    expect(curatorSessions()).toHaveLength(0);

    writeFileSync(join(bed.ws.root, "curator.json"), JSON.stringify({ turns: [curatorTurn(MERGE)] }));
    writeFileSync(
      join(bed.ws.nbookDir, "config.json"),
      JSON.stringify({
        providers: { curator: { kind: "scripted", script: "curator.json" } },
        profiles: { "memory.curator": { model: "curator/test" } },
      }),
    );
    expect(ok(await call()).details).toMatchObject({ status: "updated", attempts: 1 });
    expect(bed.memory()).toBe(AFTER);
  });
});

describe("nbook tool subject_memory_update", () => {
  it("previews in discuss mode without writing, and updates in normal mode, on a configured scripted curator", async () => {
    // Each call opens its own curator harness, so each replays the script from its first turn.
    writeFileSync(join(bed.ws.root, "curator.json"), JSON.stringify({ turns: [curatorTurn(MERGE)] }));
    writeFileSync(
      join(bed.ws.nbookDir, "config.json"),
      JSON.stringify({
        providers: { curator: { kind: "scripted", script: "curator.json" } },
        profiles: { "memory.curator": { model: "curator/test" } },
      }),
    );
    const input = JSON.stringify({ subjectPath: MIRA, facts: FACTS });
    const nbook = (...args: string[]) =>
      runNbookInProcess(["tool", KEY, "--input", input, "--json", ...args], { cwd: bed.project.root });

    const stopped = await nbook("--mode", "discuss");
    expect(stopped.status).toBe(1);
    const out = JSON.parse(stopped.stdout) as { ok: false; error: { code: string; message: string } };
    expect(out.error.code).toBe("approval_required");
    expect(out.error.message).toContain('+{"topic":"Lin"');
    expect(bed.memory()).toBe(BEFORE);

    const done = await nbook();
    expect(done.status, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ ok: true, details: { status: "updated" } });
    expect(bed.memory()).toBe(AFTER);
  });
});
