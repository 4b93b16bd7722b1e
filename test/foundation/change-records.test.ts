import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentCollaboration } from "../../src/collab/plugin.js";
import { AgentCollaboration } from "../../src/collab/service.js";
import type { Mode } from "../../src/core/modes.js";
import { Harness } from "../../src/harness/loop.js";
import { SessionStore } from "../../src/harness/store/index.js";
import { type ScriptedTurn, scriptedModel } from "../../src/models/index.js";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { toolPorts } from "../../src/runtime/ports.js";
import { BUILTIN_TOOLS, createToolRegistry } from "../../src/tools/builtin.js";
import { type DispatchContext, dispatch } from "../../src/tools/dispatch.js";
import { makeSubjectMemoryUpdateTool } from "../../src/tools/memory/update.js";
import { type ChangeRecord, ChangeRecordSchema } from "../../src/tools/pipeline/record.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import type { DispatchResult, ToolPreview } from "../../src/tools/types.js";
import { closeWorkflowSandbox } from "../../src/workflows/sandbox/index.js";
import { makeTestBed, type TestBed } from "../helpers.js";
import { workflowBed } from "../workflows/fixtures.js";

/**
 * The record step, through the real dispatch: every executed write-effect call ends in exactly
 * one ChangeRecord, and a refused, rejected (waiting for an approval), failed or unchanged call in none.
 */

let bed: TestBed;
const registry = createToolRegistry();
beforeEach(() => {
  bed = makeTestBed("novel");
  writeFileSync(join(bed.project.root, "notes.md"), "Mira is seventeen.\n");
});
afterEach(() => bed.cleanup());

interface Outcome {
  result: DispatchResult;
  records: ChangeRecord[];
}

/** One call through dispatch, collecting the records it emits. */
async function call(
  key: string,
  input: unknown,
  o: { mode?: Mode; approved?: boolean; basis?: unknown; profile?: string } = {},
): Promise<Outcome> {
  const records: ChangeRecord[] = [];
  const dctx: DispatchContext = {
    registry,
    workspace: bed.ws,
    project: bed.project,
    mode: o.mode ?? "normal",
    profileKey: o.profile ?? null,
    allow: o.profile ? bed.catalog.allowlist(o.profile) : "all",
    ...(o.approved || o.basis !== undefined ? { approved: true } : {}),
    ...(o.basis !== undefined ? { approvedBasis: o.basis } : {}),
    session: { id: "s-1", profileKey: "leader.default", initial: {}, callId: "call-1", services: {} },
    onChange: (r) => records.push(r),
  };
  return { result: await dispatch({ key, input }, dctx), records };
}

/** Expect the call ran and made exactly one valid record, naming who made it; return the record. */
function one(
  o: Outcome,
  tool: string,
  origin: Pick<ChangeRecord, "session" | "callId"> = { session: "s-1", callId: "call-1" },
): ChangeRecord {
  expect(o.result.ok, JSON.stringify(o.result)).toBe(true);
  expect(o.records).toHaveLength(1);
  const r = ChangeRecordSchema.parse(o.records[0]);
  expect(r).toMatchObject({ tool, ...origin, profile: null });
  expect(r.summary).not.toMatch(/\n/);
  expect(r.summary.length).toBeGreaterThan(0);
  return r;
}

function none(o: Outcome, code?: string): void {
  if (code) expect(!o.result.ok && o.result.error.code).toBe(code);
  expect(o.records).toEqual([]);
}

/** The preview a discuss-mode call stopped with, as the store keeps it (through JSON). */
function previewOf(o: Outcome): ToolPreview {
  if (o.result.ok || o.result.error.code !== "approval_required") throw new Error(JSON.stringify(o.result));
  return JSON.parse(JSON.stringify((o.result.error.details as { preview: ToolPreview }).preview));
}

const HASH = /^[0-9a-f]{64}$/;

describe("file writes: one record with each target's content hash before and after", () => {
  const writes = {
    write: { path: "notes.md", content: "Mira is eighteen.\n" },
    edit: { path: "notes.md", edits: [{ oldText: "seventeen", newText: "eighteen" }] },
    apply_patch: {
      patch:
        "*** Begin Patch\n*** Update File: notes.md\n@@\n-Mira is seventeen.\n+Mira is eighteen.\n*** End Patch",
    },
  } as const;

  for (const [key, input] of Object.entries(writes)) {
    it(`${key}: executed once → one record; unchanged, asked, refused and failed → none`, async () => {
      const asked = await call(key, input, { mode: "discuss" });
      none(asked, "approval_required");
      const refused = await call(key, input, { profile: "writer" });
      none(refused, "not_allowed");

      const r = one(await call(key, input), key);
      expect(r.targets).toEqual(["notes.md"]);
      expect(r.files).toEqual([
        { path: "notes.md", before: expect.stringMatching(HASH), after: expect.stringMatching(HASH) },
      ]);
      expect(r.files?.[0].before).not.toBe(r.files?.[0].after);

      // Now the file has the new text: the same call changes nothing (write, apply_patch) or fails (edit).
      const again = await call(key, input);
      if (key === "write") expect(again.result.ok).toBe(true);
      else expect(again.result.ok).toBe(false);
      none(again);
    });

    it(`${key}: approved against its preview → one record; a conflict → none`, async () => {
      const preview = previewOf(await call(key, input, { mode: "discuss" }));
      writeFileSync(join(bed.project.root, "notes.md"), "Mira is seventeen.\nA hand edit.\n");
      none(await call(key, input, { mode: "discuss", basis: preview.basis }), "conflict");
      const fresh = previewOf(await call(key, input, { mode: "discuss" }));
      one(await call(key, input, { mode: "discuss", basis: fresh.basis }), key);
    });
  }

  it("write that creates a file records its before hash as null", async () => {
    const r = one(await call("write", { path: "new.md", content: "x\n" }), "write");
    expect(r.files).toEqual([{ path: "new.md", before: null, after: expect.stringMatching(HASH) }]);
  });

  it("write of a file's own content in a read-only mode runs ungated and records nothing", async () => {
    none(await call("write", { path: "notes.md", content: "Mira is seventeen.\n" }, { mode: "discuss" }));
  });

  it("plan mode's .agent/plan/ exemption runs and records", async () => {
    const r = one(
      await call("write", { path: ".agent/plan/p.md", content: "plan\n" }, { mode: "plan" }),
      "write",
    );
    expect(r.targets).toEqual([".agent/plan/p.md"]);
  });
});

describe("bash: one record per executed command", () => {
  it("runs (approved where it cannot be confined) → one; asked in discuss mode → none", async () => {
    none(await call("bash", { command: "echo hi > out.txt" }, { mode: "discuss" }), "approval_required");
    const r = one(await call("bash", { command: "echo hi > out.txt" }, { approved: true }), "bash");
    expect(r.targets).toBeNull();
    expect(r.summary).toBe("$ echo hi > out.txt");
  });
});

describe("execute_sql: one record per statement that changed rows", () => {
  const insert = { sql: "INSERT INTO story_act (sort_order, name, title) VALUES (1, 'one', 'One')" };
  it("INSERT → one with the row count; a SELECT, an UPDATE of no rows, an asked one → none", async () => {
    none(await call("execute_sql", insert, { mode: "discuss" }), "approval_required");
    const r = one(await call("execute_sql", insert), "execute_sql");
    expect(r.rows).toEqual({ before: null, after: { changes: 1 } });
    none(await call("execute_sql", { sql: "SELECT * FROM story_act" }));
    none(await call("execute_sql", { sql: "UPDATE story_act SET title = 'x' WHERE id = 999" }));
    none(await call("execute_sql", { sql: "DROP TABLE story_act" }), "not_allowed");
  });

  it("approved against its preview → one, carrying the approved basis", async () => {
    const preview = previewOf(await call("execute_sql", insert, { mode: "discuss" }));
    const r = one(
      await call("execute_sql", insert, { mode: "discuss", basis: preview.basis }),
      "execute_sql",
    );
    expect(r.rows?.before).toEqual(preview.basis);
  });
});

describe("execute_world: one record per script that stored writes", () => {
  const write = `world.slice.write({ time: 1000, title: "arrival", patches: [
    { subjectId: "hero", type: "character", name: "Hero", path: "/hp", op: "replace", value: 90 } ]});`;
  it("a writing script → one with its canonical writes; a reading one, a dry run, an asked one → none", async () => {
    none(await call("execute_world", { code: write }, { mode: "discuss" }), "approval_required");
    none(await call("execute_world", { code: "return world.subject.list().length" }, { mode: "discuss" }));
    const r = one(await call("execute_world", { code: write }), "execute_world");
    expect(r.rows?.before).toBeNull();
    expect(r.rows?.after).toHaveLength(1);
    none(await call("execute_world", { code: "return world.subject.get('hero').hp" }));
    none(await call("execute_world", { code: "throw new Error('no')" }));
  });

  it("approved against its preview → one, before = the approved writes", async () => {
    const preview = previewOf(await call("execute_world", { code: write }, { mode: "discuss" }));
    const r = one(
      await call("execute_world", { code: write }, { mode: "discuss", basis: preview.basis }),
      "execute_world",
    );
    expect(r.rows?.before).toEqual((preview.basis as { writes: unknown }).writes);
  });
});

describe("plot writes: one record with the row bases of each save", () => {
  it("every save_* tool → one each; asked, refused and failed → none", async () => {
    const idOf = (o: Outcome) => (o.result.ok ? (o.result.details as { id: number }).id : -1);
    const act = await call("save_story_act", { action: "create", name: "one", title: "One" });
    const actRec = one(act, "save_story_act");
    expect(actRec.rows).toEqual({
      before: { rows: [] },
      after: { rows: [{ kind: "act", id: idOf(act), sha256: expect.stringMatching(HASH) }] },
    });
    one(await call("save_story_chapter", { action: "create", name: "c", title: "C" }), "save_story_chapter");
    const thread = await call("save_story_thread", { action: "create", name: "t", title: "T" });
    one(thread, "save_story_thread");
    const scene = await call("save_story_scene", { action: "create", threadId: idOf(thread), title: "S" });
    one(scene, "save_story_scene");
    const promise = await call("save_story_promise", { action: "create", name: "p", title: "P" });
    one(promise, "save_story_promise");
    const beat = { action: "set", promiseId: idOf(promise), sceneId: idOf(scene), kind: "plant" };
    const beatRec = one(await call("save_promise_beat", beat), "save_promise_beat");
    expect(beatRec.rows?.before).toEqual({
      rows: [
        { kind: "promise", id: idOf(promise), sha256: expect.stringMatching(HASH) },
        { kind: "scene", id: idOf(scene), sha256: expect.stringMatching(HASH) },
      ],
    });
    one(
      await call("save_story_decision", { action: "create", name: "d", title: "D", question: "Q?" }),
      "save_story_decision",
    );

    const update = { action: "update", actId: idOf(act), title: "Uno" };
    none(await call("save_story_act", update, { mode: "discuss" }), "approval_required");
    none(await call("save_story_act", update, { profile: "writer" }), "not_allowed");
    none(await call("save_story_act", { action: "update", actId: 999, title: "X" }), "not_found");
    const updated = one(await call("save_story_act", update), "save_story_act");
    expect(updated.rows?.before).not.toEqual(updated.rows?.after);
  });
});

describe("subject memory: one record per append", () => {
  const append = { subjectPath: "simulation/subjects/mira", events: [{ text: "Mira hears the bell." }] };
  it("subject_event_append → one with the events file's hashes; asked → none", async () => {
    none(await call("subject_event_append", append, { mode: "discuss" }), "approval_required");
    const r = one(await call("subject_event_append", append), "subject_event_append");
    expect(r.targets).toEqual(["simulation/subjects/mira/events.jsonl"]);
    expect(r.files).toEqual([
      { path: "simulation/subjects/mira/events.jsonl", before: null, after: expect.stringMatching(HASH) },
    ]);
    const second = one(await call("subject_event_append", append), "subject_event_append");
    expect(second.files?.[0].before).toBe(r.files?.[0].after);
  });

  it("subject_memory_update approved against its preview → one; a stale basis → none", async () => {
    const dir = join(bed.project.root, "simulation/subjects/mira");
    mkdirSync(dir, { recursive: true });
    const memory = '{"topic":"the bell","view":"Silent."}\n';
    writeFileSync(join(dir, "memory.jsonl"), memory);
    const patch = [{ op: "replace", path: "/0/view", value: "It rang." }];
    const sha = await import("node:crypto").then((c) => c.createHash("sha256").update(memory).digest("hex"));
    const basis = {
      tool: "subject_memory_update",
      sourcePath: "simulation/subjects/mira/memory.jsonl",
      sha256: sha,
      patch,
    };
    const input = { subjectPath: "simulation/subjects/mira", facts: ["The bell rang."] };
    none(
      await call("subject_memory_update", input, {
        mode: "discuss",
        basis: { ...basis, sha256: "0".repeat(64) },
      }),
      "conflict",
    );
    none(
      await call("subject_memory_update", input, { mode: "discuss", basis: { nonsense: true } }),
      "conflict",
    );
    const r = one(
      await call("subject_memory_update", input, { mode: "discuss", basis }),
      "subject_memory_update",
    );
    expect(r.files).toEqual([
      {
        path: "simulation/subjects/mira/memory.jsonl",
        before: sha,
        after: expect.stringMatching(HASH),
      },
    ]);
    expect(readFileSync(join(dir, "memory.jsonl"), "utf8")).toContain("It rang.");
  });
});

describe("run_workflow: one record per run it starts", () => {
  afterAll(() => closeWorkflowSandbox());
  it("approved → one; asked (it asks in every mode) → none; invalid → none", async () => {
    const bed = await workflowBed({ turns: [{ text: "unused" }] });
    try {
      const dispatchAs = async (input: unknown, approved: boolean): Promise<Outcome> => {
        const records: ChangeRecord[] = [];
        const result = await dispatch(
          { key: "run_workflow", input },
          {
            ports: toolPorts(),
            registry,
            workspace: bed.workspace,
            project: bed.project,
            mode: "normal",
            profileKey: "leader.default",
            allow: bed.harness.catalog.allowlist("leader.default"),
            ...(approved ? { approved: true } : {}),
            session: {
              id: bed.callerId,
              profileKey: "leader.default",
              initial: {},
              callId: "call-1",
              services: {
                collab: new AgentCollaboration(bed.harness, bed.callerId, "call-1", "normal"),
                jobs: bed.harness.jobs,
              },
            },
            onChange: (r) => records.push(r),
          },
        );
        return { result, records };
      };
      const quick = "export default async function run(wf, args) { return { doubled: args.n * 2 }; }";
      const input = { script: quick, args: { n: 21 }, wait: true };
      none(await dispatchAs(input, false), "approval_required");
      const ran = await dispatchAs(input, true);
      expect(ran.result.ok, JSON.stringify(ran.result)).toBe(true);
      expect(ran.records).toHaveLength(1);
      expect(ran.records[0]).toMatchObject({ tool: "run_workflow", session: bed.callerId, callId: "call-1" });
      none(
        await dispatchAs({ ...input, args: { n: "x" }, budget: { maxInvocations: -1 } }, true),
        "invalid_input",
      );
    } finally {
      await bed.close();
    }
  });
});

describe("subject_memory_update with its curator: one record per curation it writes", () => {
  it("an update → one with memory.jsonl's hashes; an unchanged curation and an asked one → none", async () => {
    const dir = join(bed.project.root, "simulation/subjects/mira");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "memory.jsonl"), '{"topic":"the bell","view":"Silent."}\n');
    let turns: ScriptedTurn[] = [];
    const store = SessionStore.forWorkspace(bed.ws);
    const tool = makeSubjectMemoryUpdateTool(async () => ({ harness, close: () => {} }));
    const tools = new ToolRegistry([...BUILTIN_TOOLS.filter((t) => t.key !== tool.key), tool]);
    const harness: Harness = new Harness({
      collaboration: agentCollaboration(),
      ports: toolPorts(),
      workspace: bed.ws,
      store,
      registry: tools,
      catalog: new ProfileCatalog(tools, bed.ws, bed.project),
      resolveModel: (ref) => ({
        ref: ref ?? "scripted/test",
        model: scriptedModel(turns),
        contextWindow: 128_000,
      }),
    });
    const report = (patch: unknown): ScriptedTurn => ({
      toolCalls: [{ name: "report_result", input: { result: "Curated.", data: { patch } } }],
    });
    const update = async (mode: Mode): Promise<Outcome> => {
      const records: ChangeRecord[] = [];
      const result = await dispatch(
        { key: tool.key, input: { subjectPath: "simulation/subjects/mira", facts: ["The bell rang."] } },
        {
          registry: tools,
          workspace: bed.ws,
          project: bed.project,
          mode,
          profileKey: null,
          allow: "all",
          onChange: (r) => records.push(r),
        },
      );
      return { result, records };
    };
    try {
      turns = [report([{ op: "replace", path: "/0/view", value: "It rang." }])];
      none(await update("discuss"), "approval_required");
      const r = one(await update("normal"), tool.key, { session: null, callId: null });
      expect(r.files?.[0]).toMatchObject({ path: "simulation/subjects/mira/memory.jsonl" });
      expect(r.files?.[0].before).not.toBe(r.files?.[0].after);
      turns = [report([])];
      const unchanged = await update("normal");
      expect(unchanged.result.ok && unchanged.result.text).toMatch(/^unchanged: /);
      none(unchanged);
      // In a read-only mode a curation that writes nothing runs ungated, reusing the preview's curation.
      const ungated = await update("discuss");
      expect(ungated.result.ok && ungated.result.text).toMatch(/^unchanged: /);
      none(ungated);
    } finally {
      harness.close();
    }
  });
});
