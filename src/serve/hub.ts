import { existsSync } from "node:fs";
import type { HarnessEvent } from "../harness/events.js";
import type { Harness } from "../harness/loop.js";
import { type Entry, type Session, SessionStore } from "../harness/store/index.js";
import { History } from "../history/history.js";
import { openHarness } from "../runtime/open.js";
import { WorkflowStore } from "../workflows/store/index.js";
import type { Project } from "../workspace/project.js";
import type { Workspace } from "../workspace/workspace.js";
import { ProjectFiles } from "./project-files.js";
import { EventLog, type StreamLimits } from "./sse.js";

/** How the hub is built. */
export interface HubOptions {
  workspace: Workspace;
  /** A scripted model file for every session (`--script`). */
  script?: string;
  /** Build a project's harness (default: openHarness on the workspace's config). */
  openHarness?: (project: Project | null) => Harness;
  /** Sizes of every event stream. */
  limits?: Partial<StreamLimits>;
  /** Where notices go (default: stderr). */
  log?: (line: string) => void;
}

/** Session streams kept at once; the least recently used one beyond this is forgotten. */
const MAX_SESSION_LOGS = 64;

/** Tools whose results name the files they changed. */
const FILE_WRITERS = new Set(["write", "edit", "apply_patch"]);

/**
 * What one `nbook serve` process holds: the workspace, one harness per project (agents keep running
 * whatever tab started them), the workspace event stream and a stream per session.
 */
export class ServeHub {
  readonly workspace: Workspace;
  /** Workspace-wide events: sessions created and changing status, files changed by agents. */
  readonly events: EventLog;
  /** A store for listing and reading sessions (runs use their harness's own). */
  readonly store: SessionStore;
  private readonly harnesses = new Map<string, Harness>();
  private readonly logs = new Map<string, EventLog>();
  /** Per session: the last entry whose file changes were reported. */
  private readonly scanned = new Map<string, number>();
  private readonly runs = new Set<Promise<unknown>>();
  private workflows: WorkflowStore | null = null;
  private readonly files = new Map<string, ProjectFiles>();

  constructor(private readonly opts: HubOptions) {
    this.workspace = opts.workspace;
    this.events = new EventLog(opts.limits);
    this.store = SessionStore.forWorkspace(opts.workspace);
  }

  /** The harness that runs a project's sessions (null: workspace-level sessions), opened on first use. */
  harness(project: string | null): Harness {
    const key = project ?? "";
    const open = this.harnesses.get(key);
    if (open) return open;
    const p = project === null ? null : this.workspace.project(project);
    const h = this.opts.openHarness
      ? this.opts.openHarness(p)
      : openHarness({
          workspace: this.workspace,
          project: p,
          script: this.opts.script,
          // Sessions made before a restart continue at their next turn, as `run --session` does.
          scriptStart: "recorded",
          notice: this.opts.log,
        });
    h.bus.on((e) => this.onEvent(h, e));
    h.jobs.on((e) => this.events.publish(e.type, { job: e.job }));
    this.harnesses.set(key, h);
    return h;
  }

  /** A session and the harness that runs it; `not_found` for an unknown id. */
  sessionHarness(id: string): { session: Session; harness: Harness } {
    const session = this.store.session(id);
    return { session, harness: this.harness(session.project) };
  }

  /** A project's file tree cache and search index, made on first use. */
  projectFiles(project: string): ProjectFiles {
    let f = this.files.get(project);
    if (!f) {
      f = new ProjectFiles(this.workspace.project(project));
      this.files.set(project, f);
    }
    return f;
  }

  /** Tell every client which files changed, each with its node as it is now (so no one refetches the tree). */
  publishFilesChanged(project: string, sessionId: string | null, tool: string, paths: string[]): void {
    let nodes: ReturnType<ProjectFiles["changed"]> | undefined;
    try {
      nodes = this.projectFiles(project).changed(paths);
    } catch {
      // A project that cannot be opened any more: clients are told to refetch (no nodes).
      nodes = undefined;
    }
    this.events.publish("files_changed", { project, sessionId, tool, paths, ...(nodes ? { nodes } : {}) });
  }

  /** The workspace's workflow store (runs, asks, participants), opened on first use. */
  workflowStore(): WorkflowStore {
    this.workflows ??= WorkflowStore.forWorkspace(this.workspace);
    return this.workflows;
  }

  /** The event stream of a session (created empty when it has none yet). */
  sessionLog(id: string): EventLog {
    let log = this.logs.get(id);
    if (log) {
      // Most recently used last, so the oldest idle stream is the one forgotten.
      this.logs.delete(id);
      this.logs.set(id, log);
      return log;
    }
    log = new EventLog(this.opts.limits);
    this.logs.set(id, log);
    if (this.logs.size > MAX_SESSION_LOGS) {
      for (const [old, l] of this.logs) {
        if (l.subscribers > 0) continue;
        this.logs.delete(old);
        break;
      }
    }
    return log;
  }

  /**
   * Keep a run going after the request that started it has been answered (the tab may close);
   * its outcome reaches the browser through the session stream.
   */
  track(run: Promise<unknown>): void {
    const p = run.catch((e) => this.opts.log?.(`serve: a run failed: ${(e as Error).message}`));
    this.runs.add(p);
    void p.finally(() => this.runs.delete(p));
  }

  /** Wait until every run started through the hub has ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.runs.size) await Promise.all([...this.runs]);
  }

  /** Abort runs, close streams, harnesses and stores. */
  async close(): Promise<void> {
    for (const h of this.harnesses.values()) {
      for (const s of this.store.listSessions({ status: "running" })) h.abort(s.id);
    }
    await this.idle();
    this.events.closeAll();
    for (const l of this.logs.values()) l.closeAll();
    for (const h of this.harnesses.values()) h.close();
    this.harnesses.clear();
    this.workflows?.close();
    for (const f of this.files.values()) f.close();
    this.files.clear();
    this.store.close();
  }

  private onEvent(h: Harness, e: HarnessEvent): void {
    this.sessionLog(e.sessionId).publish(e.type, e);
    if (e.type === "run_start" || e.type === "run_end") {
      const status = e.type === "run_start" ? "running" : e.status === "waiting" ? "waiting" : "idle";
      const project = h.store.session(e.sessionId).project;
      this.events.publish("session_status", { sessionId: e.sessionId, project, status });
    }
    // Results are committed by turn_end; an approved write (settled) is committed before run_start.
    if (e.type === "turn_end" || e.type === "run_start") this.reportFileChanges(h, e.sessionId);
  }

  /** Publish `files_changed` for the file writes a session committed since the last report. */
  private reportFileChanges(h: Harness, sessionId: string): void {
    const path = h.store.activePath(sessionId);
    const since = this.scanned.get(sessionId);
    const fresh: Entry[] = [];
    for (let i = path.length - 1; i >= 0; i--) {
      const entry = path[i];
      if (since !== undefined ? Number(entry.id) <= since : entry.kind === "run_end") break;
      fresh.unshift(entry);
    }
    if (path.length) this.scanned.set(sessionId, Number(path[path.length - 1].id));
    const session = h.store.session(sessionId);
    for (const entry of fresh) {
      if (entry.kind !== "tool_result" || !entry.data.ok) continue;
      if (!FILE_WRITERS.has(entry.data.key)) {
        const paths = session.project
          ? this.recordedPaths(session.project, sessionId, entry.data.callId)
          : [];
        if (paths.length && session.project)
          this.publishFilesChanged(session.project, sessionId, entry.data.key, paths);
        continue;
      }
      const changes = changedPaths(entry.data.details, session.project);
      for (const [project, paths] of changes) {
        this.publishFilesChanged(project, sessionId, entry.data.key, paths);
      }
    }
  }

  /**
   * The files the history recorded for one call whose result does not name them (bash,
   * subject_event_append): a project with no history yet has none to look up.
   */
  private recordedPaths(project: string, sessionId: string, callId: string): string[] {
    try {
      const history = History.of(this.workspace.project(project));
      if (!existsSync(history.indexPath)) return [];
      const changes = history.index.list({ session: sessionId, callId });
      return [...new Set(changes.flatMap((c) => c.targets ?? []))];
    } catch {
      // A history that cannot be read (being repaired, a project deleted) leaves the event out; the run goes on.
      return [];
    }
  }
}

/**
 * The files a write, edit or apply_patch result names, by project. A path shown as
 * `workspace/<project>/<rel>` belongs to that project; any other to the session's own.
 */
function changedPaths(details: unknown, sessionProject: string | null): Map<string, string[]> {
  const d = (details ?? {}) as { path?: unknown; files?: unknown; unchanged?: unknown };
  if (d.unchanged === true) return new Map();
  const shown: string[] = [];
  if (typeof d.path === "string") shown.push(d.path);
  if (Array.isArray(d.files)) {
    for (const f of d.files) if (typeof (f as { path?: unknown })?.path === "string") shown.push(f.path);
  }
  const out = new Map<string, string[]>();
  for (const p of shown) {
    const m = /^workspace\/([^/]+)\/(.+)$/.exec(p);
    const project = m ? m[1] : sessionProject;
    if (project === null) continue;
    const rel = m ? m[2] : p;
    out.set(project, [...(out.get(project) ?? []), rel]);
  }
  return out;
}
