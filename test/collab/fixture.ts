import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { agentCollaboration } from "../../src/collab/plugin.js";
import { AgentCollaboration } from "../../src/collab/service.js";
import type { Mode } from "../../src/core/modes.js";
import { EventBus, type HarnessEvent } from "../../src/harness/events.js";
import { Harness } from "../../src/harness/loop.js";
import type { EntryOf } from "../../src/harness/store/index.js";
import { type Session, SessionStore } from "../../src/harness/store/index.js";
import type { LoopSettings, ResolvedModel } from "../../src/harness/types.js";
import { type ScriptedTurn, scriptedModel } from "../../src/models/index.js";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { toolPorts } from "../../src/runtime/ports.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { dispatch } from "../../src/tools/dispatch.js";
import type { DispatchResult } from "../../src/tools/types.js";
import type { Project } from "../../src/workspace/project.js";
import { Workspace } from "../../src/workspace/workspace.js";

/** A session's model: scripted turns, or a hand-made model (for providers that misbehave). */
export type SessionScript = ScriptedTurn[] | LanguageModelV3;

/**
 * A workspace with two projects and a harness whose sessions each get their own model: the n-th
 * session of a profile replays `scripts["<profile>"]` (n = 1) or `scripts["<profile>#n"]`.
 */
export interface CollabFixture {
  workspace: Workspace;
  project: Project;
  other: Project;
  store: SessionStore;
  harness: Harness;
  events: HarnessEvent[];
  /** A root agent session (as the CLI creates one). */
  root(profileKey?: string, opts?: { project?: string; mode?: Mode }): Session;
  /**
   * One call of a collaboration tool made by a session, through dispatch with the session's
   * allowlist and the service the harness would give it.
   */
  tool(sessionId: string, key: string, input: unknown, signal?: AbortSignal): Promise<DispatchResult>;
  close(): void;
}

export function collabFixture(
  scripts: Record<string, SessionScript>,
  opts: { settings?: Partial<LoopSettings>; visibleModels?: string[] } = {},
): CollabFixture {
  const dir = mkdtempSync(join(tmpdir(), "nbook-collab-"));
  const workspace = Workspace.init(dir);
  const project = workspace.createProject("novel", { sample: false });
  const other = workspace.createProject("other", { sample: false });
  const store = SessionStore.forWorkspace(workspace);
  const registry = createToolRegistry();
  const catalog = new ProfileCatalog(registry, workspace);
  const bus = new EventBus();
  const events: HarnessEvent[] = [];
  bus.on((e) => events.push(e));
  const counts = new Map<string, number>();
  const models = new Map<string, LanguageModelV3>();
  const resolveModel = (ref: string | undefined, profileKey: string): ResolvedModel => {
    if (ref === undefined) {
      // A new session: its own script, pinned by a reference naming it.
      const n = (counts.get(profileKey) ?? 0) + 1;
      counts.set(profileKey, n);
      const key = n === 1 ? profileKey : `${profileKey}#${n}`;
      const script = scripts[key] ?? [{ text: `(no script for ${key})` }];
      ref = `scripted/${key}`;
      models.set(ref, Array.isArray(script) ? scriptedModel(script) : script);
    }
    const model = models.get(ref) ?? scriptedModel([{ text: `(visible model ${ref})` }]);
    return { ref, model, contextWindow: 128_000 };
  };
  const harness = new Harness({
    collaboration: agentCollaboration(),
    ports: toolPorts(),
    workspace,
    store,
    registry,
    catalog,
    resolveModel,
    bus,
    settings: opts.settings,
    visibleModels: () => opts.visibleModels ?? [],
  });
  return {
    workspace,
    project,
    other,
    store,
    harness,
    events,
    tool: (sessionId, key, input, signal) => {
      const session = store.session(sessionId);
      const project = session.project ? workspace.project(session.project) : null;
      return dispatch(
        { key, input },
        {
          registry,
          workspace,
          project,
          mode: session.mode,
          profileKey: session.profileKey,
          allow: catalog.allowlist(session.profileKey),
          signal,
          session: {
            id: sessionId,
            profileKey: session.profileKey,
            initial: session.initial,
            services: {
              collab: new AgentCollaboration(harness, sessionId, "test-call", session.mode),
            },
          },
        },
      );
    },
    root: (profileKey = "leader.default", o = {}) =>
      harness.createSession({ profileKey, project: o.project ?? "novel", mode: o.mode }),
    close: () => {
      harness.close();
      workspace.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The tool results recorded in a session, in order (every branch). */
export function toolResults(f: CollabFixture, sessionId: string) {
  return f.store
    .allEntries(sessionId)
    .filter((e): e is EntryOf<"tool_result"> => e.kind === "tool_result")
    .map((e) => e.data);
}

/** A model stream that answers `text` once `gate` settles (and then finishes the step). */
export function gatedTextStream(
  gate: Promise<unknown>,
  text: string,
): ReadableStream<LanguageModelV3StreamPart> {
  return new ReadableStream<LanguageModelV3StreamPart>({
    async start(c) {
      await gate;
      c.enqueue({ type: "text-start", id: "t" });
      c.enqueue({ type: "text-delta", id: "t", delta: text });
      c.enqueue({ type: "text-end", id: "t" });
      c.enqueue({
        type: "finish",
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
      });
      c.close();
    },
  });
}

/** One tool call of a scripted turn. */
export function call(name: string, input: Record<string, unknown>, id?: string): ScriptedTurn {
  return { toolCalls: [{ name, input, ...(id ? { id } : {}) }] };
}

/**
 * A model that streams nothing until `release()`, whatever its abort signal says (a provider that
 * ignores aborts), then one text and a finish. `started` resolves when a call begins.
 */
export function stubbornModel(text: string): LanguageModelV3 & { release(): void; started: Promise<void> } {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let onStart!: () => void;
  const started = new Promise<void>((r) => {
    onStart = r;
  });
  const model = {
    specificationVersion: "v3" as const,
    provider: "stubborn",
    modelId: "stubborn",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("not used")),
    doStream: async () => {
      onStart();
      return { stream: gatedTextStream(gate, text) };
    },
    release: () => release(),
    started,
  };
  return model as unknown as LanguageModelV3 & { release(): void; started: Promise<void> };
}
