// The workbench's only door to the server: one function per route of `nbook serve`
// (docs/serve.md). Requests carry the session cookie; errors come back as
// `{error:{code,message,fields}}` and are thrown as ApiError with the same code.

/** An error answer of the API, with the stable code the tools use. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: unknown = undefined,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined>;

function url(path: string, query?: Query): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** Send one request; resolves to the parsed JSON body, rejects with ApiError. */
export async function request<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
  const res = await fetch(url(path, query), {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const data = text ? safeJson(text) : undefined;
  if (!res.ok) {
    const err = (data as { error?: { code?: string; message?: string } } | undefined)?.error;
    throw new ApiError(res.status, err?.code ?? `http_${res.status}`, err?.message ?? res.statusText, data);
  }
  return data as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const enc = encodeURIComponent;

// ---------------------------------------------------------------- auth and projects

export interface Project {
  name: string;
  title: string;
  language: string;
  summary?: string;
  lastActivity?: string | null;
}

const P = (p: string) => `/api/projects/${enc(p)}`;

/** Every route the workbench calls, typed by what it answers. */
export const api = {
  /** Password sign-in (when the server has a password); the token link is `GET /login?token=`. */
  loginPassword: (password: string) => request<{ ok: true }>("POST", "/api/auth/login", { password }),
  logout: () => request<{ ok: true }>("POST", "/api/auth/logout"),
  me: () => request<{ authenticated: boolean; passwordLogin: boolean }>("GET", "/api/auth/me"),

  projects: () => request<{ projects: Project[] }>("GET", "/api/projects"),
  createProject: (input: { name: string; title?: string; language?: string; sample?: boolean }) =>
    request<{ project: Project }>("POST", "/api/projects", input),
  openProject: (p: string) => request<{ project: Project }>("POST", `${P(p)}/open`, {}),

  // ---------------------------------------------------------------- files
  tree: (p: string) => request<{ tree: TreeNode }>("GET", `${P(p)}/files/tree`),
  readFile: (p: string, path: string) => request<FileText>("GET", `${P(p)}/files/read`, undefined, { path }),
  writeFile: (p: string, path: string, content: string, baseVersion: string | null) =>
    request<{ path: string; version: string }>("PUT", `${P(p)}/files/write`, { path, content, baseVersion }),

  // ---------------------------------------------------------------- sessions
  sessions: (p: string) => request<{ sessions: SessionInfo[] }>("GET", `${P(p)}/sessions`),
  createSession: (p: string, input: { profile?: string; mode?: Mode; model?: string }) =>
    request<{ session: SessionInfo }>("POST", `${P(p)}/sessions`, input),
  transcript: (id: string) => request<Transcript>("GET", `/api/sessions/${enc(id)}/transcript`),
  invoke: (id: string, kind: "prompt" | "steer" | "followup", message: string) =>
    request<{ sessionId: string; status: string }>("POST", `/api/sessions/${enc(id)}/${kind}`, { message }),
  abort: (id: string) => request<{ aborted: boolean }>("POST", `/api/sessions/${enc(id)}/abort`, {}),
  setMode: (id: string, mode: Mode) =>
    request<{ mode: Mode; changed: boolean }>("PUT", `/api/sessions/${enc(id)}/mode`, { mode }),
  settle: (
    sessionId: string,
    approvalId: string,
    r: { approved: boolean; reason?: string; answer?: string },
  ) => request<unknown>("POST", `/api/sessions/${enc(sessionId)}/approvals/${enc(approvalId)}`, r),
  profiles: (p: string) =>
    request<{ profiles: { key: string; description?: string; creation?: string }[] }>(
      "GET",
      "/api/profiles",
      undefined,
      { project: p },
    ),
  models: (p: string) => request<ModelsStatus>("GET", "/api/models", undefined, { project: p }),

  // ---------------------------------------------------------------- jobs and workflow runs
  jobs: (p: string) => request<{ jobs: Job[] }>("GET", "/api/jobs", undefined, { project: p }),
  job: (id: string) => request<{ job: Job }>("GET", `/api/jobs/${enc(id)}`),
  cancelJob: (id: string) => request<{ job: Job }>("POST", `/api/jobs/${enc(id)}/cancel`, {}),
  workflowRuns: (p: string) =>
    request<{ runs: WorkflowRun[] }>("GET", "/api/workflow-runs", undefined, { project: p }),
  workflowRun: (id: string) => request<WorkflowRunView>("GET", `/api/workflow-runs/${enc(id)}`),
  answerWorkflowRun: (id: string, answers: Record<string, unknown>) =>
    request<{ run: WorkflowRun }>("POST", `/api/workflow-runs/${enc(id)}/answer`, { answers }),
  cancelWorkflowRun: (id: string) =>
    request<{ run: WorkflowRun }>("POST", `/api/workflow-runs/${enc(id)}/cancel`),

  // ---------------------------------------------------------------- world
  worldSchema: (p: string) => request<WorldSchema>("GET", `${P(p)}/world/schema`),
  subjects: (p: string) => request<{ subjects: Subject[] }>("GET", `${P(p)}/world/subjects`),
  subjectState: (p: string, id: string, at?: string) =>
    request<SubjectState>("GET", `${P(p)}/world/subjects/${enc(id)}/state`, undefined, { at }),
  subjectHistory: (p: string, id: string) =>
    request<{ history: HistoryEntry[] }>("GET", `${P(p)}/world/subjects/${enc(id)}/history`),
  worldIssues: (p: string, subject?: string) =>
    request<{ issues: Issue[] }>("GET", `${P(p)}/world/issues`, undefined, { subject }),

  // ---------------------------------------------------------------- plot
  plotTree: (p: string) => request<StoryTree>("GET", `${P(p)}/plot/tree`, undefined, { detail: true }),
  brief: (p: string, chapterId: number) =>
    request<{ markdown: string; status: string }>("GET", `${P(p)}/plot/chapters/${chapterId}/brief`),
  promises: (p: string) =>
    request<Page<PromiseRow>>("GET", `${P(p)}/plot/promises`, undefined, { limit: 200 }),
  decisions: (p: string) =>
    request<Page<DecisionRow>>("GET", `${P(p)}/plot/decisions`, undefined, { limit: 200 }),
};

// ---------------------------------------------------------------- shapes

export type Mode = "normal" | "discuss" | "plan";

/** A background job (a command or an agent call), as src/harness/store/jobs.ts describes it. */
export interface Job {
  id: string;
  kind: string;
  title: string;
  ownerSessionId: string | null;
  status: "queued" | "running" | "waiting" | "completed" | "failed" | "cancelled" | "interrupted";
  /** The latest progress line. */
  preview: string;
  /** Present when read one by one; null in lists. */
  result: { text: string } | null;
  error: { code: string; message: string } | null;
  createdAt: string;
  startedAt: string | null;
  endedAt: string | null;
}

export interface WorkflowRun {
  id: string;
  workflowKey: string;
  title: string;
  status: string;
  phases: { key: string; title: string }[];
  progress: { phase?: string; done?: number; total?: number; note?: string } | null;
  updatedAt: number;
}

export interface WorkflowRunView {
  run: WorkflowRun;
  pendingAsks: { seq: number; key: string; spec: Record<string, unknown> }[];
  participants: { sessionId: string; profileKey: string; title: string }[];
  timeline: { seq: number; kind: string; ok: boolean; ms: number; startedAt: number }[];
}

/** Configured providers and models, and which key variables are missing (src/models/status.ts). */
export interface ModelsStatus {
  providers: {
    id: string;
    key: "set" | "missing" | "not_needed";
    apiKeyEnv?: string;
    models: { ref: string }[];
  }[];
  defaultModel: string | null;
  profiles: { profile: string; ref: string | null }[];
  missingEnv: string[];
}

/** One Server-Sent Event's data: a harness event (session stream) or a workspace event. */
export interface StreamEvent {
  type: string;
  [key: string]: unknown;
}

export interface TreeNode {
  name: string;
  path: string;
  kind: "dir" | "file";
  children?: TreeNode[];
  size?: number;
  /** Words of a Markdown file (each CJK character counts as one). */
  words?: number;
}

export interface FileText {
  path: string;
  text: string;
  version: string;
}

/** The details of a 409 on a write: what is on disk now (`theirs`), to diff against the user's text. */
export interface ConflictDetails {
  path: string;
  version: string;
  theirs: string;
  yours: string;
}

export interface SessionInfo {
  id: string;
  title: string;
  profileKey: string;
  project: string | null;
  mode: Mode;
  status: "idle" | "running" | "waiting" | "archived";
  parentSessionId: string | null;
  updatedAt: string;
}

export interface PendingView {
  approvalId: string;
  kind: "write" | "switch_mode" | "user_input";
  callId: string;
  tool: string;
  input: unknown;
  preview: string;
}

export interface TaskItem {
  id: string;
  title: string;
  description?: string;
  status: "pending" | "in_progress" | "completed" | "cancelled";
}

/** One stored entry of a session's active branch (src/harness/store/schema.ts). */
export interface Entry {
  id: string;
  kind: string;
  data: Record<string, any>;
  createdAt: string;
}

/** A session's active branch with what is pending and its task list. */
export interface Transcript {
  session: SessionInfo;
  entries: Entry[];
  pending: PendingView | null;
  tasks: TaskItem[];
  running: boolean;
}

export interface WorldSchema {
  calendar: { kind: string; format: string; zero: string; examples?: string[] };
}

export interface Subject {
  id: string;
  type: string;
  name: string;
}

export interface SubjectState extends Subject {
  at: string;
  state: Record<string, unknown>;
}

export interface HistoryEntry {
  sliceId: string;
  time?: string;
  instant: number;
  sliceTitle: string;
  path: string;
  op: string;
  value?: unknown;
  summary?: string;
}

export interface Issue {
  code: string;
  label: string;
  severity: "error" | "advisory";
  subjectId: string;
  attr: string;
  time?: string;
  title: string;
  message: string;
  explanation: { whatHappened: string; whyItMatters: string; suggestedAction: string };
}

interface PlotNode {
  id: number;
  name: string;
  title: string;
  status: string;
  scenes: number;
}

export interface StoryTree {
  story: { title: string };
  acts: (Omit<PlotNode, "scenes"> & { chapters: PlotNode[] })[];
  ungroupedChapters: PlotNode[];
  phases: (Omit<PlotNode, "scenes"> & { threads: ThreadNode[] })[];
  ungroupedThreads: ThreadNode[];
}

export interface ThreadNode extends PlotNode {
  isMain: boolean;
  sceneList?: { id: number; title: string; status: string; chapterId: number | null }[];
}

export interface Page<T> {
  rows: T[];
  total: number;
  nextCursor: string | null;
}

export interface PromiseRow {
  id: number;
  name: string;
  title: string;
  status: string;
  importance: string;
  /** Where the promise stands by its beats: unplanted, planted, echoed, paid_off. */
  stage: string;
  beats: { plant: number; advance: number; setback: number; payoff: number };
  deadlineChapterId: number | null;
}

export interface DecisionRow {
  id: number;
  name: string;
  title: string;
  status: string;
  question: string;
  anchor: { kind: string; id: number | null; path: string | null };
  deadlineChapterId: number | null;
}
