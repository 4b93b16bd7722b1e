// What each route of `nbook serve` answers on success, as zod schemas: the OpenAPI document publishes
// them and the workbench (web/) imports their types (type-only, so none of this is bundled).
// Domain records the workbench reads only in part (plot views, World rows, profiles, workflow runs)
// are open objects: the fields named here are always there, and more may be.
import { z } from "zod";
import { ImportPlanSchema } from "../books/import/plan.js";
import { ErrorInfoSchema } from "../core/error-schema.js";
import { ModeSchema } from "../core/modes.js";
import { GoalsSchema } from "../goals/goals.js";
import { RewindPointSchema, RewindResultSchema } from "../harness/rewind.js";
import { ModelCallSchema, UsageTotalsSchema } from "../harness/store/calls.js";
import { EntryPageSchema } from "../harness/store/pages.js";
import { PendingViewSchema, RunStatusSchema, SessionSchema, TaskSchema } from "../harness/store/schema.js";
import { HistoryStatsSchema, RepairReportSchema } from "../history/maintenance.js";
import { BlameSchema, ChangeShownSchema } from "../history/review.js";
import { ChangeSchema } from "../history/schema.js";
import { JobStatusSchema } from "../jobs/store.js";
import { RunStatusSchema as WorkflowRunStatusSchema } from "../workflows/store/schema.js";
import { MentionCandidateSchema } from "./mentions.js";

const isoTime = z.string().describe("an ISO 8601 time");

// ---------------------------------------------------------------- auth and projects

export const AuthStateSchema = z.object({ authenticated: z.boolean() }).strict();
export const MeSchema = z.object({ authenticated: z.literal(true), passwordLogin: z.boolean() }).strict();

/** What the bookshelf shows of a project. */
export const ProjectViewSchema = z
  .object({
    name: z.string(),
    title: z.string(),
    summary: z.string(),
    language: z.string(),
    lastActivity: isoTime.nullable(),
  })
  .strict();
export type ProjectView = z.infer<typeof ProjectViewSchema>;
export const ProjectListSchema = z.object({ projects: z.array(ProjectViewSchema) }).strict();
export const OneProjectSchema = z.object({ project: ProjectViewSchema }).strict();

// ---------------------------------------------------------------- imports

/** An upload and the plan of its import (nothing imported yet). */
export const ImportPlannedSchema = z.object({ importId: z.string(), plan: ImportPlanSchema }).strict();
/** An import done: its plan as carried out, and the project it created or appended to. */
export const ImportCreatedSchema = z.object({ plan: ImportPlanSchema, project: ProjectViewSchema }).strict();
export const ImportDroppedSchema = z.object({ dropped: z.literal(true) }).strict();

// ---------------------------------------------------------------- files

/** A node of a project's file tree; a link is listed, never followed. */
export const FileNodeSchema = z
  .object({
    name: z.string(),
    path: z.string(),
    kind: z.enum(["dir", "file", "link"]),
    size: z.number().optional(),
    /** Words of a Markdown file's prose, its title heading and front matter left out (each CJK character counts as one). */
    words: z.number().optional(),
    /** A Markdown file's title: its leading `#` heading (what the export titles the chapter). */
    title: z.string().optional(),
    /** A folder whose entries this answer leaves out: ask for them with `?path=<its path>`. */
    lazy: z.boolean().optional(),
    get children(): z.ZodOptional<z.ZodArray<typeof FileNodeSchema>> {
      return z.array(FileNodeSchema).optional();
    },
  })
  .strict();
export type FileNode = z.infer<typeof FileNodeSchema>;
export const FileTreeSchema = z
  .object({
    tree: FileNodeSchema,
    truncated: z.boolean().describe("a folder had more entries than one answer lists, and was cut"),
  })
  .strict();
export const FileTextSchema = z
  .object({ path: z.string(), text: z.string(), version: z.string().describe("sha256 of the text") })
  .strict();
export type FileText = z.infer<typeof FileTextSchema>;
export const FileWrittenSchema = z
  .object({ path: z.string(), version: z.string(), created: z.boolean(), unchanged: z.boolean() })
  .strict();
/** A move or delete done from the workbench: the history change it made and every file it touched. */
export const FilesChangedSchema = z
  .object({
    summary: z.string(),
    change: z.string().nullable().describe("the history change id (revert it to take the change back)"),
    paths: z.array(z.string()).describe("project-relative files removed or created"),
  })
  .strict();
export type FilesChanged = z.infer<typeof FilesChangedSchema>;
/** The details of a 409 on a write: what is on disk now (`theirs`), to diff against the user's text. */
export const WriteConflictDetailsSchema = z
  .object({ path: z.string(), version: z.string(), theirs: z.string(), yours: z.string() })
  .strict();
export type WriteConflictDetails = z.infer<typeof WriteConflictDetailsSchema>;
export { type SearchHit, type SearchResult, SearchResultSchema } from "../search/schema.js";

// ---------------------------------------------------------------- sessions

export const SessionStateSchema = z
  .object({
    session: SessionSchema,
    running: z.boolean(),
    pending: PendingViewSchema.nullable(),
    tasks: z.array(TaskSchema),
  })
  .strict();

/**
 * A page of the active branch, root first, each `data` of its `kind` (src/harness/store/schema.ts).
 * `older`: the `before` cursor of the page before it (null at the root); `newer`: the `after`
 * cursor of the page after it (null when the page reaches the leaf).
 */
export const TranscriptSchema = SessionStateSchema.extend(EntryPageSchema.shape).strict();
export type Transcript = z.infer<typeof TranscriptSchema>;

/** A session and the sessions it created; `detached` marks a child its creator let go. */
export const SessionNodeSchema = z
  .object({
    session: SessionSchema,
    detached: z.boolean(),
    get children(): z.ZodArray<typeof SessionNodeSchema> {
      return z.array(SessionNodeSchema);
    },
  })
  .strict();
export type SessionNode = z.infer<typeof SessionNodeSchema>;

export const SessionListSchema = z
  .object({
    sessions: z.array(SessionSchema),
    ephemeral: z
      .array(z.string())
      .describe("ids of the listed sessions that are ephemeral workflow participants"),
  })
  .strict();
export const SessionDeletedSchema = z.object({ deleted: z.string().describe("the session id") }).strict();
export const SessionForestSchema = z.object({ tree: z.array(SessionNodeSchema) }).strict();
export const OneSessionSchema = z.object({ session: SessionSchema }).strict();
/** An invocation under way (`running`), waiting for the active run (`queued`), or already over with how its run ended. */
export const InvocationSchema = z
  .object({
    sessionId: z.string(),
    status: z.enum(["running", "queued", ...RunStatusSchema.options]),
  })
  .strict();
/** An inline request (POST …/inline): running, how its run ended, and the alternatives it answered. */
export const InlineAlternativesSchema = z
  .object({
    sessionId: z.string(),
    running: z.boolean(),
    status: RunStatusSchema.nullable(),
    alternatives: z.array(z.string()),
    error: z.string().nullable(),
  })
  .strict();
export type InlineAlternatives = z.infer<typeof InlineAlternativesSchema>;
export const AbortedSchema = z.object({ aborted: z.boolean() }).strict();
export const ModeChangeSchema = z.object({ mode: ModeSchema, changed: z.boolean() }).strict();
/** What a rewind or an undo did: where the leaf is, how many entries it left, the changes it took back. */
export const RewindSchema = RewindResultSchema;
/** Where `/rewind` can go back to: before each of the user's messages on the active branch, oldest first. */
export const RewindPointsSchema = z.object({ points: z.array(RewindPointSchema) }).strict();
/** What the chat's `@` popup offers for what was typed: files, then plot scenes, then world subjects. */
export const MentionListSchema = z.object({ candidates: z.array(MentionCandidateSchema) }).strict();
export const TaskListSchema = z.object({ tasks: z.array(TaskSchema) }).strict();
export const PendingListSchema = z
  .object({
    pending: z.array(
      PendingViewSchema.extend({ sessionId: z.string(), project: z.string().nullable() }).strict(),
    ),
  })
  .strict();

// ---------------------------------------------------------------- world

export const WorldSchemaSchema = z
  .object({
    schema: z.looseObject({
      source: z.enum(["file", "none"]),
      types: z.array(z.looseObject({ type: z.string() })),
    }),
    calendar: z.looseObject({
      kind: z.string(),
      format: z.string(),
      precision: z.string(),
      zero: z.string(),
      examples: z.array(z.string()),
      settings: z.record(z.string(), z.unknown()),
    }),
  })
  .strict();
export type WorldSchemaView = z.infer<typeof WorldSchemaSchema>;
export const SubjectSchema = z.object({ id: z.string(), type: z.string(), name: z.string() }).strict();
export type Subject = z.infer<typeof SubjectSchema>;
export const SubjectListSchema = z.object({ subjects: z.array(SubjectSchema) }).strict();
export const SubjectStateSchema = SubjectSchema.extend({
  at: z.string().describe("the calendar time, or `latest`"),
  state: z.record(z.string(), z.unknown()),
}).strict();
export type SubjectState = z.infer<typeof SubjectStateSchema>;
/** A row with an instant carries it also as a calendar time. */
const timed = { instant: z.number(), time: z.string() };
export const HistoryEntrySchema = z.looseObject({
  ...timed,
  sliceId: z.string(),
  sliceTitle: z.string(),
  path: z.string(),
  op: z.string(),
  value: z.unknown().optional(),
  summary: z.string().optional(),
});
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;
export const HistorySchema = z.object({ history: z.array(HistoryEntrySchema) }).strict();
/** One scene's editable fields, as save_story_scene takes them. */
export const SceneDetailSchema = z.looseObject({
  id: z.number(),
  title: z.string(),
  status: z.string(),
  outcomeType: z.string().nullable(),
  pacingRole: z.string().nullable(),
  summary: z.string(),
  purpose: z.string().nullable(),
  writingTip: z.string().nullable(),
  note: z.string().nullable(),
  worldAnchor: z.looseObject({ startTime: z.string().nullable(), endTime: z.string().nullable() }),
});
export type SceneDetail = z.infer<typeof SceneDetailSchema>;
/** A scene on the story's calendar, with its place in reading order (null when not in a chapter). */
export const TimelineSceneSchema = z.looseObject({
  id: z.number(),
  title: z.string(),
  status: z.string(),
  threadId: z.number(),
  threadTitle: z.string(),
  chapterId: z.number().nullable(),
  chapterTitle: z.string().nullable(),
  position: z.number().nullable().describe("the scene's number in reading order"),
  startInstant: z.number().nullable(),
  endInstant: z.number().nullable(),
  startTime: z.string().nullable(),
  endTime: z.string().nullable(),
  subjectIds: z.array(z.string()),
  locationSubjectId: z.string().nullable(),
});
export type TimelineScene = z.infer<typeof TimelineSceneSchema>;
export const TimelineSchema = z
  .object({
    scenes: z.array(TimelineSceneSchema).describe("by story time; scenes with no time last"),
    events: z.array(
      z.looseObject({
        id: z.string(),
        instant: z.number(),
        time: z.string(),
        title: z.string(),
        summary: z.string(),
        kind: z.string(),
      }),
    ),
    eventsTruncated: z.boolean().describe("true when only the latest events are listed"),
  })
  .strict();
export type Timeline = z.infer<typeof TimelineSchema>;
export const SliceListSchema = z
  .object({
    slices: z.array(
      z.looseObject({
        ...timed,
        id: z.string(),
        title: z.string(),
        kind: z.string(),
        patchCount: z.number(),
      }),
    ),
  })
  .strict();
export const IssueSchema = z.looseObject({
  code: z.string(),
  label: z.string(),
  severity: z.enum(["error", "advisory"]),
  subjectId: z.string(),
  attr: z.string(),
  instant: z.number().optional(),
  time: z.string().optional(),
  title: z.string(),
  message: z.string(),
  explanation: z.object({ whatHappened: z.string(), whyItMatters: z.string(), suggestedAction: z.string() }),
});
export type Issue = z.infer<typeof IssueSchema>;
export const IssueListSchema = z.object({ issues: z.array(IssueSchema) }).strict();

// ---------------------------------------------------------------- plot

const plotNode = { id: z.number(), name: z.string(), title: z.string(), status: z.string() };
const PlotChapterSchema = z.looseObject({ ...plotNode, scenes: z.number() });
const PlotThreadSchema = z.looseObject({
  ...plotNode,
  scenes: z.number(),
  isMain: z.boolean(),
  sceneList: z
    .array(
      z.looseObject({
        id: z.number(),
        title: z.string(),
        status: z.string(),
        chapterId: z.number().nullable(),
      }),
    )
    .optional(),
});
export type PlotThread = z.infer<typeof PlotThreadSchema>;
export const StoryTreeSchema = z.looseObject({
  story: z.looseObject({ title: z.string() }),
  acts: z.array(z.looseObject({ ...plotNode, chapters: z.array(PlotChapterSchema) })),
  ungroupedChapters: z.array(PlotChapterSchema),
  phases: z.array(z.looseObject({ ...plotNode, threads: z.array(PlotThreadSchema) })),
  ungroupedThreads: z.array(PlotThreadSchema),
});
export type StoryTree = z.infer<typeof StoryTreeSchema>;
export const ChapterDetailSchema = z.looseObject({
  chapter: z.looseObject({
    ...plotNode,
    note: z.string().nullable(),
    brief: z.record(z.string(), z.string().nullable()).describe("the 11 writer-brief fields"),
  }),
  scenes: z.array(z.looseObject({ id: z.number(), title: z.string(), status: z.string() })),
});
export const WriterBriefSchema = z.looseObject({ markdown: z.string(), status: z.string() });

/** A page of rows, with the cursor of the next page. */
const page = <T extends z.ZodType>(row: T) =>
  z.object({ rows: z.array(row), total: z.number(), nextCursor: z.string().nullable() }).strict();
export const PromiseRowSchema = z.looseObject({
  ...plotNode,
  importance: z.string(),
  /** Where the promise stands by its beats: unplanted, planted, echoed, paid_off. */
  stage: z.string(),
  beats: z.object({ plant: z.number(), advance: z.number(), setback: z.number(), payoff: z.number() }),
  deadlineChapterId: z.number().nullable(),
});
export type PromiseRow = z.infer<typeof PromiseRowSchema>;
export const PromisePageSchema = page(PromiseRowSchema);
export const DecisionRowSchema = z.looseObject({
  ...plotNode,
  question: z.string(),
  anchor: z.looseObject({ kind: z.string(), id: z.number().nullable(), path: z.string().nullable() }),
  deadlineChapterId: z.number().nullable(),
});
export type DecisionRow = z.infer<typeof DecisionRowSchema>;
export const DecisionPageSchema = page(DecisionRowSchema);
/** What a plot write tool returned: the row it saved (or the promise a beat changed). */
export const PlotSavedSchema = z.object({ tool: z.string(), result: z.unknown() }).strict();
export type Page<T> = { rows: T[]; total: number; nextCursor: string | null };

// ---------------------------------------------------------------- models, profiles, skills

/** Configured providers and models, and which key variables are missing (src/models/status.ts). */
export const ModelsStatusSchema = z
  .object({
    providers: z.array(
      z.looseObject({
        id: z.string(),
        kind: z.string(),
        apiKeyEnv: z.string().optional(),
        key: z.enum(["set", "missing", "not_needed"]),
        models: z.array(z.looseObject({ ref: z.string(), contextWindow: z.number() })),
      }),
    ),
    defaultModel: z.string().nullable(),
    profiles: z.array(
      z.object({ profile: z.string(), ref: z.string().nullable(), source: z.string().nullable() }),
    ),
    missingEnv: z.array(z.string()),
    problems: z.array(z.string()),
  })
  .strict();
export type ModelsStatus = z.infer<typeof ModelsStatusSchema>;
const keyState = z.enum(["set", "missing", "not_needed"]);
export const SettingsSchema = z
  .object({
    models: ModelsStatusSchema,
    embedding: z
      .discriminatedUnion("kind", [
        z.object({ kind: z.literal("local"), dimensions: z.number() }).strict(),
        z
          .object({
            kind: z.literal("api"),
            provider: z.string().nullable(),
            model: z.string().nullable(),
            dimensions: z.number(),
          })
          .strict(),
      ])
      .nullable(),
    webSearch: z
      .object({
        order: z.array(z.string()),
        providers: z.array(
          z
            .object({
              name: z.string(),
              enabled: z.boolean(),
              url: z.string().nullable(),
              apiKeyEnv: z.string().nullable(),
              key: keyState,
            })
            .strict(),
        ),
      })
      .strict(),
  })
  .strict();
export type Settings = z.infer<typeof SettingsSchema>;
const profileSource = z.enum(["builtin", "user", "project"]);
const creation = z.enum(["public", "system_only"]);
export const ProfileListSchema = z
  .object({
    profiles: z.array(
      z
        .object({
          key: z.string(),
          name: z.string(),
          description: z.string(),
          creation,
          source: profileSource,
          overridesBuiltin: z.boolean(),
          tools: z.number(),
        })
        .strict(),
    ),
    problems: z.array(z.unknown()),
  })
  .strict();
export const ProfileDescriptionSchema = z.looseObject({
  key: z.string(),
  name: z.string(),
  description: z.string(),
  creationMode: creation,
  createAgentAllowed: z.boolean(),
  source: profileSource,
  toolKeys: z.array(z.string()),
});
const SkillSchema = z.looseObject({
  name: z.string(),
  status: z.string(),
  layer: z.string(),
  path: z.string(),
});
export const SkillListSchema = z.object({ skills: z.array(SkillSchema) }).strict();
export const OneSkillSchema = z.object({ skill: SkillSchema, text: z.string() }).strict();

// ---------------------------------------------------------------- jobs and workflow runs

/** A background job (a command or an agent call); `result` is set only when read one by one. */
export const JobSchema = z.looseObject({
  id: z.string(),
  kind: z.string(),
  title: z.string(),
  ownerSessionId: z.string().nullable(),
  status: JobStatusSchema,
  /** The latest progress line. */
  preview: z.string(),
  result: z.looseObject({ text: z.string() }).nullable(),
  error: ErrorInfoSchema.nullable(),
  createdAt: isoTime,
  startedAt: isoTime.nullable(),
  endedAt: isoTime.nullable(),
});
export type Job = z.infer<typeof JobSchema>;
export const JobListSchema = z.object({ jobs: z.array(JobSchema) }).strict();
export const OneJobSchema = z.object({ job: JobSchema }).strict();

/** A workflow run without its script. */
export const WorkflowRunSchema = z.looseObject({
  id: z.string(),
  workflowKey: z.string(),
  title: z.string(),
  status: WorkflowRunStatusSchema,
  phases: z.array(z.looseObject({ key: z.string(), title: z.string() })),
  progress: z
    .looseObject({
      phase: z.string().optional(),
      done: z.number().optional(),
      total: z.number().optional(),
      note: z.string().optional(),
    })
    .nullable(),
  updatedAt: z.number().describe("milliseconds since the epoch"),
});
export type WorkflowRun = z.infer<typeof WorkflowRunSchema>;
export const WorkflowRunListSchema = z.object({ runs: z.array(WorkflowRunSchema) }).strict();
export const OneWorkflowRunSchema = z.object({ run: WorkflowRunSchema }).strict();
export const WorkflowRunViewSchema = z
  .object({
    run: WorkflowRunSchema,
    pendingAsks: z.array(
      z.looseObject({ seq: z.number(), key: z.string(), spec: z.record(z.string(), z.unknown()) }),
    ),
    participants: z.array(
      z.looseObject({ sessionId: z.string(), profileKey: z.string(), title: z.string() }),
    ),
    timeline: z.array(
      z
        .object({ seq: z.number(), kind: z.string(), ok: z.boolean(), ms: z.number(), startedAt: z.number() })
        .strict(),
    ),
  })
  .strict();
export type WorkflowRunView = z.infer<typeof WorkflowRunViewSchema>;

/** The JSON envelope every API error has: `{error:{code,message,fields[,details]}}`. */
export const ErrorBodySchema = z.object({ error: ErrorInfoSchema.required({ fields: true }) }).strict();

/** Schemas the document names once and refers to (the recursive ones must be named). */
export const NAMED_SCHEMAS: Record<string, z.ZodType> = {
  Error: ErrorBodySchema,
  FileNode: FileNodeSchema,
  Session: SessionSchema,
  SessionNode: SessionNodeSchema,
  Job: JobSchema,
  WorkflowRun: WorkflowRunSchema,
};

// ---------------------------------------------------------------- history

/** A turn the listed changes were made in: its session, and the start of the message that began it. */
export const ChangeTurnSchema = z
  .object({
    session: z.string(),
    /** The entry id of the turn's user message (ChangeSchema's `turn`). */
    turn: z.string(),
    /** The message's first characters, on one line (null: the session or entry is gone). */
    text: z.string().nullable(),
    time: z.string().nullable(),
  })
  .strict();
export type ChangeTurn = z.infer<typeof ChangeTurnSchema>;
export const ChangeListSchema = z
  .object({ changes: z.array(ChangeSchema), turns: z.array(ChangeTurnSchema) })
  .strict();
export { BlameSchema, ChangeShownSchema, HistoryStatsSchema, RepairReportSchema };
export const RevertedSchema = z.object({ change: ChangeSchema.nullable() }).strict();
export const PrunedSchema = z.object({ removed: z.number().int() }).strict();
/** One model call in a list: its number, model, usage and cost, and the size of what it was sent. */
const ModelCallLineSchema = ModelCallSchema.omit({ manifest: true })
  .extend({ totalTokens: z.number().int() })
  .strict();
/** What a session's model call was sent (its manifest), the session's calls and totals. */
export const SessionContextSchema = z
  .object({ call: ModelCallSchema.nullable(), calls: z.array(ModelCallLineSchema), usage: UsageTotalsSchema })
  .strict();
/** A session's usage and its project's today (UTC), with the budget state. */
export const SessionUsageSchema = z
  .object({
    session: UsageTotalsSchema,
    project: z.string().nullable(),
    day: z.string(),
    projectDay: UsageTotalsSchema,
    budget: z.object({ state: z.enum(["ok", "warn", "stop"]), message: z.string().nullable() }).strict(),
  })
  .strict();
/** A project's usage on one UTC day. */
export const ProjectUsageSchema = z
  .object({ project: z.string(), day: z.string(), usage: UsageTotalsSchema })
  .strict();
/** Where a session stands against its budgets: its own or the config's limit, spent, the verdict. */
export { BudgetStatusSchema } from "../harness/session-budget.js";
/** What `/compact` wrote: the summary, or null when there was nothing older to summarise. */
export const CompactedSchema = z.object({ compacted: z.boolean(), summary: z.string().nullable() }).strict();

const DeltaSchema = z.object({ added: z.number(), removed: z.number() }).strict();
/** Goals with the book's progress against them and the daily log. */
export const GoalsViewSchema = z
  .object({
    goals: GoalsSchema,
    progress: z
      .object({
        chapters: z.array(
          z
            .object({ path: z.string(), title: z.string(), words: z.number(), target: z.number().nullable() })
            .strict(),
        ),
        total: z.number(),
      })
      .strict(),
    days: z
      .array(z.object({ day: z.string(), you: DeltaSchema, agents: DeltaSchema }).strict())
      .describe("oldest first, today last; words on the added and removed lines of manuscript/ changes"),
  })
  .strict();
export type GoalsView = z.infer<typeof GoalsViewSchema>;
