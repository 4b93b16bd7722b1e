import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentCollaboration } from "../src/collab/plugin.js";
import { EventBus, type HarnessEvent } from "../src/harness/events.js";
import { Harness } from "../src/harness/loop.js";
import { SessionStore } from "../src/harness/store/index.js";
import type { LoopSettings, ResolvedModel } from "../src/harness/types.js";
import { type ScriptedLanguageModel, type ScriptedTurn, scriptedModel } from "../src/models/index.js";
import { ProfileCatalog } from "../src/profiles/catalog.js";
import { toolPorts } from "../src/runtime/ports.js";
import { createToolRegistry } from "../src/tools/builtin.js";
import type { AnyTool } from "../src/tools/types.js";
import type { Project } from "../src/workspace/project.js";
import { Workspace } from "../src/workspace/workspace.js";

/** A temporary workspace with one project, a store, and a harness on a scripted model. */
export interface HarnessFixture {
  dir: string;
  workspace: Workspace;
  project: Project;
  store: SessionStore;
  harness: Harness;
  model: ScriptedLanguageModel;
  events: HarnessEvent[];
  /** Replace the script (the next model call replays the first new turn). */
  script(turns: ScriptedTurn[]): ScriptedLanguageModel;
  close(): void;
}

export function harnessFixture(
  turns: ScriptedTurn[],
  opts: {
    settings?: Partial<LoopSettings>;
    contextWindow?: number;
    sample?: boolean;
    /** Extra tools to register (for probes). */
    tools?: AnyTool[];
    /** User profile files to write into .nbook/agent/profiles/ (name → YAML). */
    profiles?: Record<string, string>;
  } = {},
): HarnessFixture {
  const dir = mkdtempSync(join(tmpdir(), "nbook-harness-"));
  const workspace = Workspace.init(dir);
  const project = workspace.createProject("novel", { sample: opts.sample ?? true });
  const store = SessionStore.forWorkspace(workspace);
  const registry = createToolRegistry();
  for (const t of opts.tools ?? []) registry.register(t);
  for (const [name, yaml] of Object.entries(opts.profiles ?? {})) {
    writeFileSync(join(workspace.nbookDir, "agent", "profiles", name), yaml);
  }
  const catalog = new ProfileCatalog(registry, workspace);
  const bus = new EventBus();
  const events: HarnessEvent[] = [];
  bus.on((e) => events.push(e));
  const fx = {
    dir,
    workspace,
    project,
    store,
    events,
    model: scriptedModel(turns),
  } as HarnessFixture;
  // Every reference resolves to the current script, under the name asked for (default: scripted/test).
  const resolve = (ref: string | undefined): ResolvedModel => ({
    ref: ref ?? "scripted/test",
    model: fx.model,
    contextWindow: opts.contextWindow ?? 128_000,
  });
  fx.harness = new Harness({
    collaboration: agentCollaboration(),
    ports: toolPorts(),
    workspace,
    store,
    registry,
    catalog,
    resolveModel: resolve,
    bus,
    settings: opts.settings,
  });
  fx.script = (next) => {
    fx.model = scriptedModel(next);
    return fx.model;
  };
  fx.close = () => {
    store.close();
    workspace.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return fx;
}
