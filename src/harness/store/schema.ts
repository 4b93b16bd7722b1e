import { z } from "zod";
import { ErrorInfoSchema } from "../../core/error-schema.js";
import { ModeSchema } from "../../core/modes.js";
import { TaskStatusSchema } from "../../tasks/list.js";

/** Where a session is in its life: idle (ready), running (a run is active), waiting (on the user), archived. */
export const SessionStatusSchema = z.enum(["idle", "running", "waiting", "archived"]);
export type SessionStatus = z.infer<typeof SessionStatusSchema>;

/** One tool call of an assistant message. `id` is the provider's call id. */
export const ToolCallSchema = z
  .object({ id: z.string().min(1), key: z.string().min(1), input: z.unknown() })
  .strict();
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** One item of the in-session task list. */
export const TaskSchema = z
  .object({
    id: z.string().min(1),
    title: z.string().min(1),
    description: z.string().optional(),
    status: TaskStatusSchema,
  })
  .strict();
export type Task = z.infer<typeof TaskSchema>;

const runId = z.string().min(1);

/** How a run ended (or paused). */
/** `budget_limit`: a session or project budget was used up before a model call; raise it and continue. */
export const RunStatusSchema = z.enum([
  "completed",
  "waiting",
  "error",
  "aborted",
  "step_limit",
  "budget_limit",
]);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/** What an approval is for: a write a read-only mode stopped, or the agent's request to switch mode. */
export const ApprovalKindSchema = z.enum(["write", "switch_mode"]);
export type ApprovalKind = z.infer<typeof ApprovalKindSchema>;

/**
 * Context the user attached to a message by an `@`-mention (a file, a plot scene, a world subject):
 * its text as it was when the message was sent, cut to a size cap (`truncated`).
 */
export const AttachmentSchema = z
  .object({
    kind: z.enum(["file", "scene", "subject"]),
    /** The file's project path, the scene's id or the subject's id. */
    ref: z.string().min(1),
    label: z.string(),
    text: z.string(),
    truncated: z.boolean().default(false),
  })
  .strict();
export type Attachment = z.output<typeof AttachmentSchema>;

/** The data of each entry kind; the tree stores them verbatim as JSON. */
export const ENTRY_DATA = {
  /**
   * A user (or queued) message. `queueItemId` marks the queue item this message consumed. Intent
   * `system`: a follow-up from nbook itself (a background job's result), not the user's words.
   */
  user: z
    .object({
      text: z.string(),
      intent: z.enum(["prompt", "steer", "followup", "system"]).default("prompt"),
      queueItemId: z.string().optional(),
      attachments: z.array(AttachmentSchema).optional(),
    })
    .strict(),
  /** One model step: its text and the tool calls it made. `partial`/`aborted`/`error` mark a cut stream. */
  assistant: z
    .object({
      text: z.string(),
      toolCalls: z.array(ToolCallSchema).default([]),
      status: z.enum(["complete", "partial", "aborted", "error"]).default("complete"),
      model: z.string().optional(),
      usage: z
        .object({ inputTokens: z.number().optional(), outputTokens: z.number().optional() })
        .strict()
        .optional(),
    })
    .strict(),
  /** The result of one tool call; `ok: false` carries an error (`aborted` for a call cut short). */
  tool_result: z
    .object({
      callId: z.string().min(1),
      key: z.string().min(1),
      ok: z.boolean(),
      text: z.string(),
      details: z.unknown().optional(),
      error: ErrorInfoSchema.optional(),
      truncated: z.boolean().optional(),
    })
    .strict(),
  mode_change: z
    .object({
      from: ModeSchema,
      to: ModeSchema,
      by: z.enum(["user", "agent"]),
      reason: z.string().optional(),
    })
    .strict(),
  /** A call a read-only mode (or switch_mode) suspended; also creates a durable approval row. */
  approval_request: z
    .object({
      callId: z.string().min(1),
      key: z.string().min(1),
      kind: ApprovalKindSchema.default("write"),
      input: z.unknown(),
      /** What the user is shown; `basis` pins the approval to it (see ToolPreview.basis). */
      preview: z
        .object({ text: z.string(), details: z.unknown().optional(), basis: z.unknown().optional() })
        .strict(),
    })
    .strict(),
  /** The user's decision; settles the approval row in the same transaction. */
  approval_decision: z
    .object({
      approvalId: z.string().min(1),
      callId: z.string().min(1),
      approved: z.boolean(),
      reason: z.string().optional(),
    })
    .strict(),
  user_input_request: z
    .object({
      callId: z.string().min(1),
      question: z.string().min(1),
      choices: z.array(z.string()).optional(),
      allowFreeText: z.boolean().optional(),
    })
    .strict(),
  user_input_answer: z.object({ callId: z.string().min(1), answer: z.string() }).strict(),
  /** A snapshot of the whole task list after a change; the list follows the branch. */
  task_list: z.object({ tasks: z.array(TaskSchema), change: z.string().optional() }).strict(),
  /** Older history summarised; the model sees the summary then the entries from `firstKeptEntryId`. */
  compaction: z
    .object({
      summary: z.string(),
      firstKeptEntryId: z.string().nullable(),
      tokensBefore: z.number().optional(),
    })
    .strict(),
  /** `ceiling`: the calling agent's mode, which the run may not exceed; `caller`: that agent's call. */
  run_start: z
    .object({
      runId,
      invocation: z.enum(["prompt", "continue", "steer", "followup"]),
      ceiling: ModeSchema.optional(),
      caller: z
        .object({ sessionId: z.string().min(1), callId: z.string().min(1) })
        .strict()
        .optional(),
    })
    .strict(),
  run_end: z
    .object({
      runId,
      status: RunStatusSchema,
      finalMessage: z.string().optional(),
      data: z.unknown().optional(),
    })
    .strict(),
  run_error: z.object({ runId, error: ErrorInfoSchema, phase: z.string().optional() }).strict(),
} as const;

export type EntryKind = keyof typeof ENTRY_DATA;
export const ENTRY_KINDS = Object.keys(ENTRY_DATA) as EntryKind[];

/** Input data of one kind (defaults optional), and the stored data (defaults applied). */
export type EntryDataIn<K extends EntryKind> = z.input<(typeof ENTRY_DATA)[K]>;
export type EntryData<K extends EntryKind> = z.output<(typeof ENTRY_DATA)[K]>;

function entryOf<K extends EntryKind>(kind: K) {
  return z.object({ kind: z.literal(kind), data: ENTRY_DATA[kind] });
}

/** An entry to append, `kind` choosing the schema of its `data`: parsed once, as it is appended. */
export const EntryInputSchema = z.discriminatedUnion("kind", [
  entryOf("user"),
  entryOf("assistant"),
  entryOf("tool_result"),
  entryOf("mode_change"),
  entryOf("approval_request"),
  entryOf("approval_decision"),
  entryOf("user_input_request"),
  entryOf("user_input_answer"),
  entryOf("task_list"),
  entryOf("compaction"),
  entryOf("run_start"),
  entryOf("run_end"),
  entryOf("run_error"),
]);
/** An entry to append (defaults optional); a parsed one has its defaults applied. */
export type EntryInput = z.input<typeof EntryInputSchema>;
export type ParsedEntryInput = z.output<typeof EntryInputSchema>;

const entryHeader = {
  id: z.string(),
  sessionId: z.string(),
  parentId: z.string().nullable(),
  depth: z.number(),
  createdAt: z.string(),
};
function storedOf<K extends EntryKind>(kind: K) {
  return entryOf(kind).extend(entryHeader);
}

/** A stored entry: ids are decimal strings; `parentId` null for a root. */
export const EntrySchema = z.discriminatedUnion("kind", [
  storedOf("user"),
  storedOf("assistant"),
  storedOf("tool_result"),
  storedOf("mode_change"),
  storedOf("approval_request"),
  storedOf("approval_decision"),
  storedOf("user_input_request"),
  storedOf("user_input_answer"),
  storedOf("task_list"),
  storedOf("compaction"),
  storedOf("run_start"),
  storedOf("run_end"),
  storedOf("run_error"),
]);
export type Entry = z.output<typeof EntrySchema>;

/** An entry of one kind. */
export type EntryOf<K extends EntryKind> = Extract<Entry, { kind: K }>;

/** A session's header row. */
export const SessionSchema = z
  .object({
    id: z.string(),
    profileKey: z.string(),
    project: z.string().nullable(),
    title: z.string(),
    /** The mode at the leaf (mode changes are entries, so the mode follows the branch). */
    mode: ModeSchema,
    /** Pinned model reference `<providerId>/<modelId>`, never a key. */
    model: z.string().nullable(),
    initial: z.record(z.string(), z.unknown()),
    status: SessionStatusSchema,
    /** The session that created this one (collaboration), if any. */
    parentSessionId: z.string().nullable(),
    leafId: z.string().nullable(),
    entryCount: z.number(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .strict();
export type Session = z.infer<typeof SessionSchema>;

/** A pending request the user must settle before the run continues. */
export const PendingViewSchema = z
  .object({
    approvalId: z.string(),
    /** `write`: a write stopped by a read-only mode; `switch_mode`; `user_input`: request_user_input. */
    kind: z.enum([...ApprovalKindSchema.options, "user_input"]),
    /** The suspended tool call. */
    callId: z.string(),
    tool: z.string(),
    input: z.unknown(),
    /** What the user sees: a diff, the question, the requested mode and reason. */
    preview: z.string(),
  })
  .strict();
export type PendingView = z.infer<typeof PendingViewSchema>;

/** A durable approval: a suspended call waiting for the user. `id` is its approval_request entry id. */
export interface Approval {
  id: string;
  sessionId: string;
  callId: string;
  toolKey: string;
  kind: ApprovalKind;
  input: unknown;
  /** The preview the user decides on; an approval runs the call against its `basis`. */
  preview: { text: string; details?: unknown; basis?: unknown };
  status: "pending" | "approved" | "rejected";
  reason: string | null;
  createdAt: string;
  settledAt: string | null;
}

/** `system`: a follow-up nbook queues itself (a job's flow-back); it runs like a followup. */
export const QueueKindSchema = z.enum(["steer", "followup", "prompt", "system"]);
export type QueueKind = z.infer<typeof QueueKindSchema>;

/** A durable queued input of a session, consumed in order. */
export interface QueueItem {
  id: string;
  sessionId: string;
  kind: QueueKind;
  text: string;
  seq: number;
  consumed: boolean;
  createdAt: string;
  consumedAt: string | null;
}

/** A tool call on the active path that has no result yet (waiting on an approval or an answer). */
export interface PendingCall {
  entryId: string;
  call: ToolCall;
}
