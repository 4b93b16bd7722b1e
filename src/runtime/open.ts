import { agentCollaboration } from "../collab/plugin.js";
import { visibleModels } from "../collab/visible-models.js";
import { visibleControls } from "../core/text.js";
import { EventBus } from "../harness/events.js";
import { Harness } from "../harness/loop.js";
import { SessionStore } from "../harness/store/index.js";
import { setMaxConcurrentModelCalls } from "../harness/stream.js";
import type { LoopSettings } from "../harness/types.js";
import { agentSettings, configStamp, createModelResolver, loadModelsConfig } from "../models/index.js";
import { ProfileCatalog } from "../profiles/catalog.js";
import { createToolRegistry } from "../tools/builtin.js";
import type { Project } from "../workspace/project.js";
import type { Workspace } from "../workspace/workspace.js";
import { toolPorts } from "./ports.js";

/** How a door (CLI, HTTP) wants its harness. */
export interface OpenHarnessOptions {
  workspace: Workspace;
  project: Project | null;
  /** A scripted model file (`--script`): used for every call, no config needed. */
  script?: string;
  /**
   * Where a scripted model (`--script` or a configured `scripted` provider) resumes: the number of
   * model calls a session already made, so a conversation continued in a new process (`nbook
   * approve`, `nbook chat --session`) replays the right turn. `"recorded"`: the calls recorded for
   * whichever session calls first (a server, which cannot know that session when it opens).
   */
  scriptStart?: number | "recorded";
  settings?: Partial<LoopSettings>;
  /**
   * Where notices for the user go (default: stderr, so `--json` output stays clean): a session run
   * with a profile that overrides a built-in one is announced once per process.
   */
  notice?: (line: string) => void;
}

/** Model calls a session has recorded (assistant messages and compactions), for resuming a script. */
export function modelCallsRecorded(store: SessionStore, sessionId: string): number {
  return store.modelCalls(sessionId);
}

/**
 * The loop settings from `.nbook/config.json` (`agent` section), defaults filled in. The cap on
 * model calls is process-wide, so it is set here rather than per harness.
 */
function configSettings(workspace: Workspace, project: Project | null): Partial<LoopSettings> {
  const s = agentSettings(
    loadModelsConfig({ workspaceRoot: workspace.root, projectRoot: project?.root ?? null }),
  );
  setMaxConcurrentModelCalls(s.maxConcurrentModelCalls);
  return {
    stepLimit: s.maxSteps,
    maxRetries: s.maxRetries,
    compactAt: s.compactionThreshold,
    keepRecent: s.compactionKeepRecent,
    maxConcurrentJobs: s.maxConcurrentJobs,
    maxParallelToolCalls: s.maxParallelToolCalls,
  };
}

/**
 * Build a harness on the workspace's store, registry, profiles and configured models, with agent
 * collaboration. It lives above harness/ and collab/ because it joins them. Each model
 * reference gets one model instance for the life of the harness, so a scripted model keeps its place.
 */
export function openHarness(opts: OpenHarnessOptions): Harness {
  const { workspace, project } = opts;
  const registry = createToolRegistry();
  // A notice may quote a project's files (a profile overriding a built-in): controls shown, not sent.
  const notice = opts.notice ?? ((line: string) => process.stderr.write(visibleControls(`${line}\n`)));
  const catalog = new ProfileCatalog(registry, workspace, project, {
    onOverriddenProfile: (text) => notice(`notice: ${text}`),
  });
  const resolveModel = createModelResolver({
    workspaceRoot: workspace.root,
    projectRoot: project?.root ?? null,
    script: opts.script ?? null,
    scriptStartAt:
      opts.scriptStart === "recorded"
        ? (caller) => (caller.sessionId ? modelCallsRecorded(harness.store, caller.sessionId) : 0)
        : (opts.scriptStart ?? 0),
    profileDefault: (key) => catalog.get(key).defaultModel,
  });
  const settings = opts.script
    ? { ...opts.settings }
    : { ...configSettings(workspace, project), ...opts.settings };
  // A scripted run has one model for everything: agents cannot choose another.
  // Read again when the config files change, like the models themselves (createModelResolver).
  const roots = { workspaceRoot: workspace.root, projectRoot: project?.root ?? null };
  let visible: { stamp: string; refs: readonly string[] } | undefined;
  const visibleToAgents = () => {
    if (opts.script) return [];
    const stamp = configStamp(roots);
    if (visible?.stamp !== stamp) visible = { stamp, refs: visibleModels(loadModelsConfig(roots)) };
    return visible.refs;
  };
  const harness = new Harness({
    workspace,
    store: SessionStore.forWorkspace(workspace),
    registry,
    catalog,
    resolveModel,
    bus: new EventBus(),
    settings,
    visibleModels: visibleToAgents,
    collaboration: agentCollaboration(),
    ports: toolPorts(),
  });
  return harness;
}
