import type { Context } from "hono";
import { z } from "zod";
import { type SessionNode, sessionTree } from "../../collab/tree.js";
import { NbError } from "../../core/errors.js";
import { ModeSchema } from "../../core/modes.js";
import type { PendingView } from "../../harness/events.js";
import type { Harness } from "../../harness/loop.js";
import { RewindScopeSchema, rewindPoints } from "../../harness/rewind.js";
import { MAX_PAGE } from "../../harness/store/pages.js";
import { type Session, SessionStatusSchema } from "../../harness/store/schema.js";
import type { RunResult } from "../../harness/types.js";
import { MODEL_REF } from "../../models/reference.js";
import { type ApiRoutes, fromBody } from "../api.js";
import type { ServeHub } from "../hub.js";
import { findMentions, MAX_MENTIONS, type Mention, MentionSchema, resolveMentions } from "../mentions.js";
import {
  AbortedSchema,
  InvocationSchema,
  MentionListSchema,
  ModeChangeSchema,
  OneSessionSchema,
  PendingListSchema,
  RewindPointsSchema,
  RewindSchema,
  SessionDeletedSchema,
  SessionForestSchema,
  SessionListSchema,
  SessionNodeSchema,
  SessionStateSchema,
  TaskListSchema,
  TranscriptSchema,
} from "../responses.js";
import type { EventLog } from "../sse.js";
import { ProjectParams, ProjectQuery, sessionId } from "./common.js";

const modelRef = z.string().regex(MODEL_REF, "expected <providerId>/<modelId>");
const SessionParams = z.object({ id: sessionId }).strict();
const entryId = z.string().regex(/^[1-9]\d{0,15}$/, "expected an entry id");
const ApprovalParams = z.object({ id: sessionId, approvalId: z.string().regex(/^[1-9]\d{0,15}$/) }).strict();
const MessageBody = z
  .object({
    message: z.string().trim().min(1, "required").max(100_000),
    model: modelRef.optional().describe("a model for this invocation only"),
    mentions: z
      .array(MentionSchema)
      .max(MAX_MENTIONS)
      .optional()
      .describe("files, plot scenes and world subjects attached as context (`@`-mentions), read now"),
  })
  .strict();
const SettleBody = z
  .object({
    approved: z.boolean(),
    reason: z.string().max(4000).optional().describe("why (passed to the agent)"),
    answer: z.string().max(20_000).optional().describe("the answer to a request_user_input question"),
    model: modelRef.optional(),
  })
  .strict();

/**
 * Start an invocation and answer as soon as it is under way: errors it fails with at once (a
 * session waiting on an approval, a missing model key) are the response; otherwise the run goes on
 * in the hub, whatever happens to the request, and reports through the session stream.
 */
export async function startRun(
  hub: ServeHub,
  run: () => Promise<RunResult>,
): Promise<RunResult["status"] | "running"> {
  const p = run();
  const early = await Promise.race([
    p.then(
      (r) => ({ r }),
      (e: unknown) => ({ e }),
    ),
    new Promise<null>((resolve) => setImmediate(() => resolve(null))),
  ]);
  if (early && "e" in early) throw early.e;
  if (early) return early.r.status;
  hub.track(p);
  return "running";
}

/** A session with what the workbench shows next to it. */
function sessionState(harness: Harness, s: Session) {
  return {
    session: s,
    running: harness.isRunning(s.id),
    pending: harness.pending(s.id),
    tasks: harness.tasks(s.id),
  };
}

/**
 * A session and, recursively, the sessions it created (collaboration), as `nbook sessions list
 * --tree` arranges them (a child its creator detached is marked).
 */
function descendantTree(hub: ServeHub, root: Session): SessionNode {
  const all: Session[] = [root];
  for (let i = 0; i < all.length && all.length < MAX_TREE; i++) {
    all.push(...hub.store.listSessions({ parentSessionId: all[i].id }));
  }
  return sessionTree(all.slice(0, MAX_TREE), (id) => hub.store.linkOf(id))[0];
}

/** The context a message's mentions attach, read from the session's project. */
function mentionsOf(hub: ServeHub, session: Session, mentions: Mention[]) {
  if (session.project === null)
    throw new NbError("invalid_input", `Session ${session.id} has no project to mention files of`, {
      fields: [{ pointer: "/mentions", message: "only in a project's session" }],
    });
  return resolveMentions(hub, session.project, mentions);
}

/** Sessions one tree shows at most. */
const MAX_TREE = 500;

/** The SSE response of a stream, resumed after `Last-Event-ID` (or `?cursor=`). */
function streamResponse(c: Context, log: EventLog): Response {
  const cursor = c.req.header("last-event-id") ?? c.req.query("cursor") ?? null;
  return new Response(log.subscribe(cursor), {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      // Reverse proxies (nginx) must pass events through as they come.
      "x-accel-buffering": "no",
    },
  });
}

const CursorQuery = z.object({ cursor: z.string().max(64).optional() }).strict();

/** Sessions: list, tree, create, transcript, prompt/steer/followup/continue/abort, mode, tasks, approvals, events. */
export function registerSessionRoutes(routes: ApiRoutes, hub: ServeHub): void {
  routes.add(
    {
      method: "get",
      path: "/api/projects/:project/sessions",
      tag: "sessions",
      response: SessionListSchema,
      summary: "A project's sessions, most recently active first",
      params: ProjectParams,
      query: z
        .object({
          status: SessionStatusSchema.optional(),
          profile: z.string().min(1).max(100).optional(),
          limit: z.number().int().min(1).max(500).optional(),
        })
        .strict(),
    },
    (c, { params, query }) => {
      hub.workspace.project(params.project);
      const sessions = hub.store.listSessions({
        project: params.project,
        status: query.status,
        profileKey: query.profile,
        limit: query.limit ?? 100,
      });
      const ephemeral = hub.workflowStore().ephemeralAmong(sessions.map((s) => s.id));
      return c.json({ sessions, ephemeral: [...ephemeral] });
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/projects/:project/sessions/tree",
      tag: "sessions",
      response: SessionForestSchema,
      summary:
        "A project's sessions as the tree collaboration made: each with the agents it created under it",
      params: ProjectParams,
      query: z.object({ limit: z.number().int().min(1).max(MAX_TREE).optional() }).strict(),
    },
    (c, { params, query }) => {
      hub.workspace.project(params.project);
      const sessions = hub.store.listSessions({ project: params.project, limit: query.limit ?? 200 });
      return c.json({ tree: sessionTree(sessions, (id) => hub.store.linkOf(id)) });
    },
  );

  routes.add(
    {
      method: "post",
      path: "/api/projects/:project/sessions",
      tag: "sessions",
      response: OneSessionSchema,
      summary: "Start a session (its model is resolved now and pinned)",
      params: ProjectParams,
      body: z
        .object({
          profile: z.string().min(1).max(100).default("leader.default"),
          mode: ModeSchema.optional(),
          model: modelRef.optional(),
          title: z.string().max(200).optional(),
          initial: z.record(z.string(), z.unknown()).optional(),
        })
        .strict(),
      status: 201,
    },
    async (c, { params, body }) => {
      const harness = hub.harness(params.project);
      const session = await fromBody(() =>
        harness.createSession({
          profileKey: body.profile,
          project: params.project,
          mode: body.mode,
          model: body.model,
          title: body.title,
          initial: body.initial,
        }),
      );
      hub.events.publish("session_created", { session });
      return c.json({ session }, 201);
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/sessions/:id",
      tag: "sessions",
      response: SessionStateSchema,
      summary: "A session: header, running, what it waits on, task list",
      params: SessionParams,
    },
    (c, { params }) => {
      const { session, harness } = hub.sessionHarness(params.id);
      return c.json(sessionState(harness, session));
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/sessions/:id/tree",
      tag: "sessions",
      response: SessionNodeSchema,
      summary: "A session and the sessions started from it",
      params: SessionParams,
    },
    (c, { params }) => c.json(descendantTree(hub, hub.store.session(params.id))),
  );

  routes.add(
    {
      method: "get",
      path: "/api/sessions/:id/transcript",
      tag: "sessions",
      response: TranscriptSchema,
      summary:
        "A page of the session's active branch (newest first by cursor; root first within the page), with its pending request and task list",
      params: SessionParams,
      query: z
        .object({
          before: entryId.optional().describe("the page before this entry (the `older` of a page)"),
          after: entryId
            .optional()
            .describe("the page after this entry on the way to the leaf (the `newer` of a page)"),
          oldest: z.boolean().optional().describe("the first page from the root instead of the newest"),
          limit: z.number().int().min(1).max(MAX_PAGE).optional().describe("entries per page (100)"),
        })
        .strict(),
    },
    (c, { params, query }) => {
      const { session, harness } = hub.sessionHarness(params.id);
      const page = hub.store.page(session.id, query);
      return c.json({ ...sessionState(harness, session), ...page });
    },
  );

  for (const mode of ["prompt", "steer", "followup"] as const) {
    routes.add(
      {
        method: "post",
        path: `/api/sessions/:id/${mode}`,
        tag: "sessions",
        response: InvocationSchema,
        summary:
          mode === "prompt"
            ? "Send a message: runs now, or after the active run (queued)"
            : mode === "steer"
              ? "Steer the active run: shown to the model before its next call (runs now when idle)"
              : "Follow up: runs after the active run (now when idle)",
        params: SessionParams,
        body: MessageBody,
        status: 202,
      },
      async (c, { params, body }) => {
        const { session, harness } = hub.sessionHarness(params.id);
        const attachments = body.mentions?.length ? await mentionsOf(hub, session, body.mentions) : undefined;
        const status = await startRun(hub, () =>
          harness.invoke(params.id, { mode, message: body.message, model: body.model, attachments }),
        );
        return c.json({ sessionId: params.id, status }, 202);
      },
    );
  }

  routes.add(
    {
      method: "post",
      path: "/api/sessions/:id/continue",
      tag: "sessions",
      response: InvocationSchema,
      summary: "Continue the session where it stopped (after an error, an abort or the step limit)",
      params: SessionParams,
      body: z.object({ model: modelRef.optional() }).strict(),
      status: 202,
    },
    async (c, { params, body }) => {
      const { harness } = hub.sessionHarness(params.id);
      const status = await startRun(hub, () =>
        harness.invoke(params.id, { mode: "continue", model: body.model }),
      );
      return c.json({ sessionId: params.id, status }, 202);
    },
  );

  routes.add(
    {
      method: "post",
      path: "/api/sessions/:id/abort",
      tag: "sessions",
      response: AbortedSchema,
      summary: "Abort the session's active run (the session stays consistent)",
      params: SessionParams,
    },
    (c, { params }) => {
      const { harness } = hub.sessionHarness(params.id);
      const aborted = harness.isRunning(params.id);
      harness.abort(params.id);
      return c.json({ aborted });
    },
  );

  routes.add(
    {
      method: "put",
      path: "/api/sessions/:id/mode",
      tag: "sessions",
      response: ModeChangeSchema,
      summary: "Change the session's mode (between runs)",
      params: SessionParams,
      body: z.object({ mode: ModeSchema }).strict(),
    },
    (c, { params, body }) => {
      const { harness } = hub.sessionHarness(params.id);
      const changed = harness.setMode(params.id, body.mode);
      return c.json({ mode: body.mode, changed });
    },
  );

  routes.add(
    {
      method: "post",
      path: "/api/sessions/:id/rewind",
      tag: "sessions",
      response: RewindSchema,
      summary:
        "Go back to an entry of the active branch: the conversation (the next message branches there), the changes made since (reverted), or both",
      params: SessionParams,
      body: z
        .object({
          to: entryId.describe("the entry to go back to"),
          scope: RewindScopeSchema.default("conversation"),
        })
        .strict(),
    },
    async (c, { params, body }) => {
      const { harness } = hub.sessionHarness(params.id);
      return c.json(await harness.rewind(params.id, body.to, body.scope));
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/sessions/:id/rewind",
      tag: "sessions",
      response: RewindPointsSchema,
      summary: "Where a rewind can go back to: the entry before each of the user's messages, oldest first",
      params: SessionParams,
    },
    (c, { params }) => {
      const { session } = hub.sessionHarness(params.id);
      return c.json({ points: rewindPoints(hub.store, session.id) });
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/projects/:project/mentions",
      tag: "sessions",
      response: MentionListSchema,
      summary:
        "What a chat `@`-mention can name for what was typed: files, plot scenes and world subjects whose path, title, name or id contains it",
      params: ProjectParams,
      query: z
        .object({
          q: z.string().max(200).default(""),
          limit: z.number().int().min(1).max(50).optional().describe("candidates at most (20)"),
        })
        .strict(),
    },
    async (c, { params, query }) => {
      hub.workspace.project(params.project);
      return c.json({ candidates: await findMentions(hub, params.project, query.q, query.limit ?? 20) });
    },
  );

  routes.add(
    {
      method: "post",
      path: "/api/sessions/:id/undo",
      tag: "sessions",
      response: RewindSchema,
      summary: "Take back the changes of the session's last turn (the conversation stays)",
      params: SessionParams,
    },
    async (c, { params }) => {
      const { harness } = hub.sessionHarness(params.id);
      return c.json(await harness.undo(params.id));
    },
  );

  routes.add(
    {
      method: "post",
      path: "/api/sessions/:id/fork",
      tag: "sessions",
      response: OneSessionSchema,
      summary: "Start a new session from an entry of this one (any branch): its conversation up to there",
      params: SessionParams,
      body: z.object({ at: entryId.describe("the entry the new session starts from") }).strict(),
      status: 201,
    },
    (c, { params, body }) => c.json({ session: hub.store.forkSession(params.id, body.at) }, 201),
  );

  routes.add(
    {
      method: "put",
      path: "/api/sessions/:id/title",
      tag: "sessions",
      response: OneSessionSchema,
      summary: "Rename a session",
      params: SessionParams,
      body: z.object({ title: z.string().trim().max(200) }).strict(),
    },
    (c, { params, body }) => {
      const session = hub.store.updateSession(params.id, { title: body.title });
      hub.events.publish("session_status", {
        project: session.project,
        sessionId: session.id,
        status: session.status,
      });
      return c.json({ session });
    },
  );

  routes.add(
    {
      method: "put",
      path: "/api/sessions/:id/archived",
      tag: "sessions",
      response: OneSessionSchema,
      summary:
        "Archive a session (it takes no more messages and leaves the default list, but can still be read and exported) or restore it",
      params: SessionParams,
      body: z.object({ archived: z.boolean() }).strict(),
    },
    (c, { params, body }) => {
      const { session, harness } = hub.sessionHarness(params.id);
      if (harness.isRunning(session.id))
        throw new NbError("conflict", `Session ${session.id} is running: abort it before archiving it`);
      const updated = hub.store.setArchived(session.id, body.archived);
      hub.events.publish("session_status", {
        project: updated.project,
        sessionId: updated.id,
        status: updated.status,
      });
      return c.json({ session: updated });
    },
  );

  routes.add(
    {
      method: "delete",
      path: "/api/sessions/:id",
      tag: "sessions",
      response: SessionDeletedSchema,
      summary:
        "Delete an archived session and its transcript; refused when it has child sessions, jobs, model calls or pending approvals",
      params: SessionParams,
    },
    (c, { params }) => {
      const session = hub.store.session(params.id);
      hub.store.deleteSession(session.id);
      hub.events.publish("session_status", {
        project: session.project,
        sessionId: session.id,
        status: "deleted",
      });
      return c.json({ deleted: session.id });
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/sessions/:id/tasks",
      tag: "sessions",
      response: TaskListSchema,
      summary: "The session's task list",
      params: SessionParams,
    },
    (c, { params }) => {
      const { harness } = hub.sessionHarness(params.id);
      return c.json({ tasks: harness.tasks(params.id) });
    },
  );

  routes.add(
    {
      method: "post",
      path: "/api/sessions/:id/approvals/:approvalId",
      tag: "approvals",
      response: InvocationSchema,
      summary:
        "Settle what the session waits on: approve or reject a write or mode switch (an approved write runs exactly what its preview showed), or answer a question; then the run continues",
      params: ApprovalParams,
      body: SettleBody,
      status: 202,
    },
    async (c, { params, body }) => {
      const { harness } = hub.sessionHarness(params.id);
      const pending = harness.pending(params.id);
      if (pending?.kind === "user_input" && body.approved && body.answer === undefined) {
        throw new NbError(
          "invalid_input",
          "This is a question: give an answer (or approved: false to dismiss it)",
          {
            fields: [{ pointer: "/body/answer", message: "required for a question" }],
          },
        );
      }
      if (body.answer !== undefined && (pending?.kind !== "user_input" || !body.approved)) {
        throw new NbError("invalid_input", "answer is only for approving a question", {
          fields: [{ pointer: "/body/answer", message: "only for a question, with approved: true" }],
        });
      }
      const resolution = {
        approved: body.approved,
        ...(body.reason ? { reason: body.reason } : {}),
        ...(body.answer !== undefined ? { answer: body.answer } : {}),
      };
      const status = await startRun(hub, () =>
        harness.settle(params.id, params.approvalId, resolution, { model: body.model }),
      );
      return c.json({ sessionId: params.id, status }, 202);
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/approvals",
      tag: "approvals",
      response: PendingListSchema,
      summary: "What sessions wait on: approvals and questions",
      query: ProjectQuery,
    },
    (c, { query }) => {
      const waiting = hub.store.listSessions({
        status: "waiting",
        ...(query.project ? { project: query.project } : {}),
      });
      const pending: (PendingView & { sessionId: string; project: string | null })[] = [];
      for (const s of waiting) {
        // A session of a project since removed from the workspace cannot be settled here.
        if (s.project !== null && !hub.workspace.hasProject(s.project)) continue;
        const p = hub.harness(s.project).pending(s.id);
        if (p) pending.push({ sessionId: s.id, project: s.project, ...p });
      }
      return c.json({ pending });
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/sessions/:id/events",
      tag: "events",
      summary: "The session's live events (SSE), resumable with Last-Event-ID or ?cursor=",
      params: SessionParams,
      query: CursorQuery,
      stream: true,
    },
    (c, { params }) => {
      hub.store.session(params.id);
      return streamResponse(c, hub.sessionLog(params.id));
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/events",
      tag: "events",
      summary: "The workspace's live events (SSE): sessions, files changed by agents, projects",
      query: CursorQuery,
      stream: true,
    },
    (c) => streamResponse(c, hub.events),
  );
}
