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

export const api = {
  login: (token: string) => request<{ ok: true }>("POST", "/api/auth/login", { token }),
  logout: () => request<{ ok: true }>("POST", "/api/auth/logout"),
  me: () => request<{ authenticated: boolean }>("GET", "/api/auth/me"),

  projects: () => request<{ projects: Project[] }>("GET", "/api/projects"),
  createProject: (input: { name: string; title?: string; language?: string; sample?: boolean }) =>
    request<{ project: Project }>("POST", "/api/projects", input),

  // ---------------------------------------------------------------- files
  tree: (p: string) => request<{ entries: TreeEntry[] }>("GET", `/api/projects/${enc(p)}/files/tree`),
  readFile: (p: string, path: string) =>
    request<FileText>("GET", `/api/projects/${enc(p)}/files/read`, undefined, { path }),
  writeFile: (p: string, path: string, content: string, baseVersion: string | null) =>
    request<{ version: string }>("POST", `/api/projects/${enc(p)}/files/write`, {
      path,
      content,
      baseVersion,
    }),

  // ---------------------------------------------------------------- sessions
  sessions: (p: string) =>
    request<{ sessions: SessionInfo[] }>("GET", "/api/sessions", undefined, { project: p }),
  sessionTree: (id: string) => request<{ tree: SessionNode }>("GET", `/api/sessions/${enc(id)}/tree`),
  createSession: (input: { project: string; profile?: string; mode?: Mode; model?: string }) =>
    request<{ session: SessionInfo }>("POST", "/api/sessions", input),
  transcript: (id: string) => request<Transcript>("GET", `/api/sessions/${enc(id)}/transcript`),
  invoke: (id: string, kind: "prompt" | "steer" | "followup", message: string) =>
    request<{ accepted: boolean }>("POST", `/api/sessions/${enc(id)}/${kind}`, { message }),
  abort: (id: string) => request<{ aborted: boolean }>("POST", `/api/sessions/${enc(id)}/abort`),
  setMode: (id: string, mode: Mode) =>
    request<{ mode: Mode }>("POST", `/api/sessions/${enc(id)}/mode`, { mode }),
  settle: (
    sessionId: string,
    approvalId: string,
    r: { approved: boolean; reason?: string; answer?: string },
  ) => request<{ ok: true }>("POST", `/api/sessions/${enc(sessionId)}/approvals/${enc(approvalId)}`, r),
  profiles: () => request<{ profiles: { key: string; description?: string }[] }>("GET", "/api/profiles"),

  // ---------------------------------------------------------------- world
  worldSchema: (p: string) => request<WorldSchema>("GET", `/api/projects/${enc(p)}/world/schema`),
  subjects: (p: string) => request<{ subjects: Subject[] }>("GET", `/api/projects/${enc(p)}/world/subjects`),
  subjectState: (p: string, id: string, at?: string) =>
    request<SubjectState>("GET", `/api/projects/${enc(p)}/world/subjects/${enc(id)}/state`, undefined, {
      at,
    }),
  subjectHistory: (p: string, id: string) =>
    request<{ history: HistoryEntry[] }>("GET", `/api/projects/${enc(p)}/world/subjects/${enc(id)}/history`),
  worldIssues: (p: string, subject?: string) =>
    request<{ issues: Issue[] }>("GET", `/api/projects/${enc(p)}/world/issues`, undefined, { subject }),

  // ---------------------------------------------------------------- plot
  plotTree: (p: string) => request<StoryTree>("GET", `/api/projects/${enc(p)}/plot/tree`),
  brief: (p: string, chapterId: number) =>
    request<{ markdown: string; status: string }>(
      "GET",
      `/api/projects/${enc(p)}/plot/chapters/${chapterId}/brief`,
    ),
  promises: (p: string) =>
    request<{ promises: PromiseInfo[] }>("GET", `/api/projects/${enc(p)}/plot/promises`),
  promise: (p: string, id: number) =>
    request<PromiseInfo>("GET", `/api/projects/${enc(p)}/plot/promises/${id}`),
  decisions: (p: string) =>
    request<{ decisions: Decision[] }>("GET", `/api/projects/${enc(p)}/plot/decisions`),
};

// ---------------------------------------------------------------- shapes

export type Mode = "normal" | "discuss" | "plan";

export interface TreeEntry {
  path: string;
  type: "file" | "dir";
  size?: number;
}

export interface FileText {
  path: string;
  content: string;
  version: string;
}

/** The body of a 409 on a write: what is on disk now, to diff against the user's text. */
export interface ConflictBody {
  error: { code: "conflict"; message: string };
  current: { content: string; version: string };
}

export interface SessionInfo {
  id: string;
  title: string | null;
  profileKey: string;
  mode: Mode;
  parentId?: string | null;
  updatedAt?: string;
  running?: boolean;
}

export interface SessionNode extends SessionInfo {
  children: SessionNode[];
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

/** A session as the chat shows it: its messages, tool calls, what is pending. */
export interface Transcript {
  session: SessionInfo;
  items: ChatItem[];
  pending: PendingView[];
  tasks: TaskItem[];
  running: boolean;
}

export type ChatItem =
  | { kind: "user"; id: string; text: string }
  | { kind: "assistant"; id: string; text: string }
  | { kind: "tool"; id: string; callId: string; tool: string; summary: string; ok?: boolean; done: boolean }
  | { kind: "approval"; id: string; pending: PendingView; settled?: "approved" | "rejected" | "answered" }
  | { kind: "note"; id: string; text: string };

export interface WorldSchema {
  calendar: { kind: string; format: string; zero: string; example?: string };
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
  phases: (Omit<PlotNode, "scenes"> & { threads: (PlotNode & { isMain: boolean })[] })[];
  ungroupedThreads: (PlotNode & { isMain: boolean })[];
}

export interface PromiseInfo {
  id: number;
  name: string;
  title: string;
  status: string;
  derivedStage: string;
  importance?: string;
  summary: string;
  beats?: {
    id: number;
    kind: string;
    note: string | null;
    state: string;
    scene: { id: number; title: string };
  }[];
}

export interface Decision {
  id: number;
  name: string;
  title: string;
  status: string;
  question: string;
  conclusion: string | null;
  reason: string | null;
}
