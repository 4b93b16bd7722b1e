// The workbench's only door to the server: one function per route of `nbook serve`
// (docs/serve.md). Requests carry the session cookie; errors come back as
// `{error:{code,message,fields}}` and are thrown as ApiError with the same code.

import type { z } from "zod";
import type { Mode } from "../../src/core/modes.js";
import type * as R from "../../src/serve/responses.js";
import type { Transcript } from "../../src/serve/responses.js";

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

/** A file the server answers as a download, with the name it gives it (Content-Disposition). */
export interface Download {
  blob: Blob;
  fileName: string;
}

/** GET a download; an error answer is still JSON, thrown as ApiError. */
export async function download(path: string, query?: Query): Promise<Download> {
  const res = await fetch(url(path, query), { credentials: "same-origin" });
  if (!res.ok) {
    const data = safeJson(await res.text()) as { error?: { code?: string; message?: string } } | undefined;
    throw new ApiError(
      res.status,
      data?.error?.code ?? `http_${res.status}`,
      data?.error?.message ?? res.statusText,
      data,
    );
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "book";
  return { blob: await res.blob(), fileName: name };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const enc = encodeURIComponent;

// ---------------------------------------------------------------- what the routes answer

// The server's own response schemas (src/serve/responses.ts), as types only: nothing of the server
// is bundled. The routes are held to these schemas in the serve tests.
type Answer<S extends z.ZodType> = z.infer<S>;

export type { Mode } from "../../src/core/modes.js";
export type { PendingView, Session, Task } from "../../src/harness/store/schema.js";
export type { RevertConflict } from "../../src/history/revert.js";
export type {
  DecisionRow,
  FileNode,
  FileText,
  Issue,
  Job,
  ModelsStatus,
  Page,
  PlotThread,
  ProjectView,
  PromiseRow,
  SceneDetail,
  SearchResult,
  Settings,
  StoryTree,
  Subject,
  SubjectState,
  Timeline,
  TimelineScene,
  Transcript,
  WorkflowRun,
  WorkflowRunView,
  WriteConflictDetails,
} from "../../src/serve/responses.js";

/** What an import plan shows: chapters, titles, word counts, warnings (src/books/import/plan.ts). */
export type ImportPlan = Answer<typeof R.ImportPlannedSchema>["plan"];
/** One recorded change of the project's history (src/history/schema.ts). */
export type Change = Answer<typeof R.ChangeListSchema>["changes"][number];
/** A change with its diff: files (unified diff), plot rows (field diff), world slices (patch list). */
export type ChangeShown = Answer<typeof R.ChangeShownSchema>;
/** Who wrote each line of a file, and its words by author. */
export type Blame = Answer<typeof R.BlameSchema>;

/** Where an import goes: a new project by name, or appended `into` one. */
type ImportChoices = { project?: string; into?: string };

/** One stored entry of a session's active branch, its `data` typed by its `kind`. */
export type Entry = Transcript["entries"][number];
/** What a model call was sent, the session's calls and totals (GET /api/sessions/:id/context). */
export type SessionContext = Answer<typeof R.SessionContextSchema>;
export type UsageTotals = SessionContext["usage"];

const P = (p: string) => `/api/projects/${enc(p)}`;

/** Every route the workbench calls, typed by what it answers. */
export const api = {
  /** Password sign-in (when the server has a password); the token link is `GET /login?token=`. */
  loginPassword: (password: string) =>
    request<Answer<typeof R.AuthStateSchema>>("POST", "/api/auth/login", { password }),
  logout: () => request<Answer<typeof R.AuthStateSchema>>("POST", "/api/auth/logout"),
  me: () => request<Answer<typeof R.MeSchema>>("GET", "/api/auth/me"),

  projects: () => request<Answer<typeof R.ProjectListSchema>>("GET", "/api/projects"),
  createProject: (input: { name: string; title?: string; language?: string; sample?: boolean }) =>
    request<Answer<typeof R.OneProjectSchema>>("POST", "/api/projects", input),
  openProject: (p: string) => request<Answer<typeof R.OneProjectSchema>>("POST", `${P(p)}/open`, {}),

  // ---------------------------------------------------------------- import a manuscript
  uploadImport: (input: { filename: string; data: string }) =>
    request<Answer<typeof R.ImportPlannedSchema>>("POST", "/api/imports", input),
  planImport: (id: string, choices: ImportChoices) =>
    request<Answer<typeof R.ImportPlannedSchema>>("POST", `/api/imports/${enc(id)}/plan`, choices),
  createImport: (id: string, choices: ImportChoices) =>
    request<Answer<typeof R.ImportCreatedSchema>>("POST", `/api/imports/${enc(id)}/create`, choices),
  dropImport: (id: string) =>
    request<Answer<typeof R.ImportDroppedSchema>>("DELETE", `/api/imports/${enc(id)}`),

  // ---------------------------------------------------------------- files
  /** The project's tree, or one folder of it (one the tree returned lazy). */
  tree: (p: string, path?: string) =>
    request<Answer<typeof R.FileTreeSchema>>("GET", `${P(p)}/files/tree`, undefined, { path }),
  search: (p: string, q: string, area?: "manuscript" | "lorebook" | "plan") =>
    request<Answer<typeof R.SearchResultSchema>>("GET", `${P(p)}/search`, undefined, { q, in: area }),
  /** The compiled book (`format`: epub, docx, md, html, pdf; `chapters`: A..B) as a download. */
  exportBook: (p: string, format: string, chapters?: string) =>
    download(`${P(p)}/export`, { format, chapters }),
  readFile: (p: string, path: string) =>
    request<Answer<typeof R.FileTextSchema>>("GET", `${P(p)}/files/read`, undefined, { path }),
  writeFile: (p: string, path: string, content: string, baseVersion: string | null) =>
    request<Answer<typeof R.FileWrittenSchema>>("PUT", `${P(p)}/files/write`, { path, content, baseVersion }),

  // ---------------------------------------------------------------- history
  changes: (p: string, filter: { session?: string; path?: string; limit?: number } = {}) =>
    request<Answer<typeof R.ChangeListSchema>>("GET", `${P(p)}/history`, undefined, filter),
  change: (p: string, id: string) =>
    request<Answer<typeof R.ChangeShownSchema>>("GET", `${P(p)}/history/changes/${enc(id)}`),
  blame: (p: string, path: string) =>
    request<Answer<typeof R.BlameSchema>>("GET", `${P(p)}/history/blame`, undefined, { path }),
  /** Take changes back as a new change by the user; a 409 `conflict` carries `details.conflicts`. */
  revert: (p: string, ids: string[]) =>
    request<Answer<typeof R.RevertedSchema>>("POST", `${P(p)}/history/revert`, { ids }),

  // ---------------------------------------------------------------- sessions
  sessions: (p: string) => request<Answer<typeof R.SessionListSchema>>("GET", `${P(p)}/sessions`),
  createSession: (p: string, input: { profile?: string; mode?: Mode; model?: string }) =>
    request<Answer<typeof R.OneSessionSchema>>("POST", `${P(p)}/sessions`, input),
  /** One page of the active branch: the newest (no cursor), the one before `before`, or after `after`. */
  transcript: (id: string, page: { before?: string; after?: string; limit?: number } = {}) =>
    request<Transcript>("GET", `/api/sessions/${enc(id)}/transcript`, undefined, page),
  invoke: (id: string, kind: "prompt" | "steer" | "followup", message: string) =>
    request<Answer<typeof R.InvocationSchema>>("POST", `/api/sessions/${enc(id)}/${kind}`, { message }),
  abort: (id: string) =>
    request<Answer<typeof R.AbortedSchema>>("POST", `/api/sessions/${enc(id)}/abort`, {}),
  renameSession: (id: string, title: string) =>
    request<Answer<typeof R.OneSessionSchema>>("PUT", `/api/sessions/${enc(id)}/title`, { title }),
  archiveSession: (id: string, archived: boolean) =>
    request<Answer<typeof R.OneSessionSchema>>("PUT", `/api/sessions/${enc(id)}/archived`, { archived }),
  deleteSession: (id: string) =>
    request<Answer<typeof R.SessionDeletedSchema>>("DELETE", `/api/sessions/${enc(id)}`),
  setMode: (id: string, mode: Mode) =>
    request<Answer<typeof R.ModeChangeSchema>>("PUT", `/api/sessions/${enc(id)}/mode`, { mode }),
  context: (id: string, call?: number) =>
    request<SessionContext>("GET", `/api/sessions/${enc(id)}/context`, undefined, { call }),
  usage: (id: string) =>
    request<Answer<typeof R.SessionUsageSchema>>("GET", `/api/sessions/${enc(id)}/usage`),
  compact: (id: string, focus: string) =>
    request<Answer<typeof R.CompactedSchema>>(
      "POST",
      `/api/sessions/${enc(id)}/compact`,
      focus ? { focus } : {},
    ),
  settle: (
    sessionId: string,
    approvalId: string,
    r: { approved: boolean; reason?: string; answer?: string },
  ) =>
    request<Answer<typeof R.InvocationSchema>>(
      "POST",
      `/api/sessions/${enc(sessionId)}/approvals/${enc(approvalId)}`,
      r,
    ),
  profiles: (p: string) =>
    request<Answer<typeof R.ProfileListSchema>>("GET", "/api/profiles", undefined, { project: p }),
  models: (p: string) =>
    request<Answer<typeof R.ModelsStatusSchema>>("GET", "/api/models", undefined, { project: p }),
  settings: (p: string) =>
    request<Answer<typeof R.SettingsSchema>>("GET", "/api/settings", undefined, { project: p }),

  // ---------------------------------------------------------------- jobs and workflow runs
  jobs: (p: string) => request<Answer<typeof R.JobListSchema>>("GET", "/api/jobs", undefined, { project: p }),
  job: (id: string) => request<Answer<typeof R.OneJobSchema>>("GET", `/api/jobs/${enc(id)}`),
  cancelJob: (id: string) =>
    request<Answer<typeof R.OneJobSchema>>("POST", `/api/jobs/${enc(id)}/cancel`, {}),
  workflowRuns: (p: string) =>
    request<Answer<typeof R.WorkflowRunListSchema>>("GET", "/api/workflow-runs", undefined, { project: p }),
  workflowRun: (id: string) =>
    request<Answer<typeof R.WorkflowRunViewSchema>>("GET", `/api/workflow-runs/${enc(id)}`),
  answerWorkflowRun: (id: string, answers: Record<string, unknown>) =>
    request<Answer<typeof R.OneWorkflowRunSchema>>("POST", `/api/workflow-runs/${enc(id)}/answer`, {
      answers,
    }),
  cancelWorkflowRun: (id: string) =>
    request<Answer<typeof R.OneWorkflowRunSchema>>("POST", `/api/workflow-runs/${enc(id)}/cancel`),

  // ---------------------------------------------------------------- world
  worldSchema: (p: string) => request<Answer<typeof R.WorldSchemaSchema>>("GET", `${P(p)}/world/schema`),
  subjects: (p: string) => request<Answer<typeof R.SubjectListSchema>>("GET", `${P(p)}/world/subjects`),
  subjectState: (p: string, id: string, at?: string) =>
    request<Answer<typeof R.SubjectStateSchema>>(
      "GET",
      `${P(p)}/world/subjects/${enc(id)}/state`,
      undefined,
      { at },
    ),
  subjectHistory: (p: string, id: string) =>
    request<Answer<typeof R.HistorySchema>>("GET", `${P(p)}/world/subjects/${enc(id)}/history`),
  worldIssues: (p: string, subject?: string) =>
    request<Answer<typeof R.IssueListSchema>>("GET", `${P(p)}/world/issues`, undefined, { subject }),

  // ---------------------------------------------------------------- plot
  scene: (p: string, sceneId: number) =>
    request<Answer<typeof R.SceneDetailSchema>>("GET", `${P(p)}/plot/scenes/${sceneId}`),
  timeline: (p: string, subject?: string) =>
    request<Answer<typeof R.TimelineSchema>>("GET", `${P(p)}/plot/timeline`, undefined, { subject }),
  plotTree: (p: string) =>
    request<Answer<typeof R.StoryTreeSchema>>("GET", `${P(p)}/plot/tree`, undefined, { detail: true }),
  chapter: (p: string, chapterId: number) =>
    request<Answer<typeof R.ChapterDetailSchema>>("GET", `${P(p)}/plot/chapters/${chapterId}`),
  /** Run one plot write tool (its key and input) as the user. */
  plotSave: (p: string, tool: string, input: Record<string, unknown>) =>
    request<Answer<typeof R.PlotSavedSchema>>("POST", `${P(p)}/plot/save`, { tool, input }),
  brief: (p: string, chapterId: number) =>
    request<Answer<typeof R.WriterBriefSchema>>("GET", `${P(p)}/plot/chapters/${chapterId}/brief`),
  promises: (p: string) =>
    request<Answer<typeof R.PromisePageSchema>>("GET", `${P(p)}/plot/promises`, undefined, { limit: 200 }),
  decisions: (p: string) =>
    request<Answer<typeof R.DecisionPageSchema>>("GET", `${P(p)}/plot/decisions`, undefined, { limit: 200 }),
};

// ---------------------------------------------------------------- events

/** One Server-Sent Event's data: a harness event (session stream) or a workspace event. */
export interface StreamEvent {
  type: string;
  [key: string]: unknown;
}
