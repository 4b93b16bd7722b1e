import { z } from "zod";

/** Enums of the plot model, shared by the database CHECKs, the services and the tools. */
export const THREAD_STATUS = ["draft", "active", "paused", "done", "archived"] as const;
export const SCENE_STATUS = ["draft", "active", "written", "revised", "archived"] as const;
export const CARRIER_STATUS = ["active", "archived"] as const;
export const MICE_TYPE = ["milieu", "idea", "character", "event"] as const;
export const OUTCOME_TYPE = [
  "yes_but",
  "no_and",
  "yes_and",
  "no_but",
  "yes",
  "no",
  "no_conflict",
  "passive",
] as const;
export const PACING_ROLE = ["setup", "escalation", "breather", "climax", "resolution"] as const;
export const PROMISE_STATUS = ["open", "fulfilled", "abandoned"] as const;
export const IMPORTANCE = ["low", "medium", "high"] as const;
export const BEAT_KIND = ["plant", "advance", "setback", "payoff"] as const;
export const DECISION_STATUS = ["open", "decided", "superseded", "voided"] as const;
export const ANCHOR_KIND = ["story", "act", "chapter", "thread", "scene", "promise", "content"] as const;
export const BRIEF_KEYS = [
  "goal",
  "pov",
  "tone",
  "pacing",
  "readerKnows",
  "protagonistKnows",
  "mustHide",
  "hintOnly",
  "opening",
  "ending",
  "doNotWrite",
] as const;
/** The four information-control brief fields the writer brief's status depends on. */
export const INFO_CONTROL_KEYS = ["readerKnows", "protagonistKnows", "mustHide", "hintOnly"] as const;

export type SceneStatus = (typeof SCENE_STATUS)[number];
export type BeatKind = (typeof BEAT_KIND)[number];
export type BriefKey = (typeof BRIEF_KEYS)[number];
export type AnchorKind = (typeof ANCHOR_KIND)[number];

/** Limits shared by every caller (agents, CLI, HTTP). */
export const LIMITS = {
  name: 120,
  title: 120,
  text: 5000,
  writingTip: 2000,
  note: 5000,
  refs: 100,
  subjects: 100,
  options: 100,
  tags: 50,
  tag: 120,
  relation: 60,
  path: 512,
  listPage: 200,
} as const;

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A positive integer row id. */
export const Id = z.number().int().positive();
/** A name: lowercase slug (letters, digits, single hyphens). */
export const Slug = z
  .string()
  .max(LIMITS.name)
  .regex(SLUG, "must be a lowercase slug: letters a-z, digits and single hyphens (e.g. chapter-1)");
export const Title = z.string().trim().min(1, "must not be blank").max(LIMITS.title);
export const Text = z.string().max(LIMITS.text);
export const NullableText = Text.nullable();
export const Note = z.string().max(LIMITS.note).nullable();
/** A text that must say something (trimmed, not blank), up to the text limit. */
export const FilledText = z.string().trim().min(1).max(LIMITS.text);
export const WritingTip = z.string().max(LIMITS.writingTip).nullable();
export const Tags = z.array(z.string().trim().min(1, "must not be blank").max(LIMITS.tag)).max(LIMITS.tags);
export const SubjectId = z.string().trim().min(1, "must not be blank").max(200);

/** Where to put an item in an ordered list: exactly one of before, after or position. */
export const Placement = z
  .object({
    before: Id.optional().describe("put it right before this id"),
    after: Id.optional().describe("put it right after this id"),
    position: z.number().int().min(0).optional().describe("0-based position; past the end appends"),
  })
  .strict()
  .refine((p) => [p.before, p.after, p.position].filter((v) => v !== undefined).length === 1, {
    message: "give exactly one of before, after or position",
  });
export type Placement = z.infer<typeof Placement>;

/** Paging shared by every list mode. */
export const Paging = {
  limit: z
    .number()
    .int()
    .min(1)
    .max(LIMITS.listPage)
    .optional()
    .describe("rows per page (default 50, max 200)"),
  cursor: z.string().max(40).optional().describe("nextCursor from the previous page"),
};

/** The 11 brief fields; each a text or null (null clears, omitted leaves unchanged). */
export const BriefInput = z
  .object(Object.fromEntries(BRIEF_KEYS.map((k) => [k, FilledText.nullable().optional()])))
  .strict() as z.ZodType<Partial<Record<BriefKey, string | null>>>;

/** A world time as a project-calendar string; null clears it. */
const CalendarTime = z.string().trim().min(1).max(200).nullable().optional();
/** A world time as a World Engine instant in seconds; null clears it. */
const Instant = z.number().int().nullable().optional();

/** A scene's place in world time: calendar strings or raw instants, plus the subjects involved. */
export const WorldAnchorInput = z
  .object({
    startTime: CalendarTime.describe("start as a project-calendar string"),
    endTime: CalendarTime.describe("end as a project-calendar string"),
    startInstant: Instant.describe("start as a World Engine instant (seconds)"),
    endInstant: Instant.describe("end as a World Engine instant (seconds)"),
    subjectIds: z
      .array(SubjectId)
      .max(LIMITS.subjects)
      .optional()
      .describe("World Engine subject ids in the scene"),
    locationSubjectId: SubjectId.nullable().optional(),
  })
  .strict()
  .superRefine((a, ctx) => {
    if (a.startTime != null && a.startInstant != null) {
      ctx.addIssue({
        code: "custom",
        path: ["startInstant"],
        message: "give startTime or startInstant, not both",
      });
    }
    if (a.endTime != null && a.endInstant != null) {
      ctx.addIssue({ code: "custom", path: ["endInstant"], message: "give endTime or endInstant, not both" });
    }
    if (a.subjectIds && new Set(a.subjectIds).size !== a.subjectIds.length) {
      ctx.addIssue({ code: "custom", path: ["subjectIds"], message: "subject ids must be unique" });
    }
  });
export type WorldAnchorInput = z.infer<typeof WorldAnchorInput>;

export const SceneRefInput = z
  .object({
    relation: z.string().trim().min(1).max(LIMITS.relation),
    target: z
      .string()
      .trim()
      .min(1)
      .max(LIMITS.path)
      .describe("a project-relative file path, thread://<id|name> or scene://<id>"),
    visibility: z.enum(["author", "reader"]).optional(),
    note: Note.optional(),
  })
  .strict();
export type SceneRefInput = z.infer<typeof SceneRefInput>;

/**
 * Per-action field rules: for each action, the fields it requires and the fields it accepts
 * (`action` itself is always accepted). Unlisted fields are refused with a pointer error.
 */
export type ActionRules = Record<string, { required: readonly string[]; allowed: readonly string[] }>;

/** Add the per-action checks to an input object schema. */
export function withActionRules<S extends z.ZodObject>(schema: S, rules: ActionRules): S {
  return schema.superRefine((input: Record<string, unknown>, ctx) => {
    const action = input.action as string;
    const rule = rules[action];
    if (!rule) return;
    for (const f of rule.required) {
      if (input[f] === undefined || input[f] === null) {
        ctx.addIssue({ code: "custom", path: [f], message: `required for action ${action}` });
      }
    }
    for (const f of Object.keys(input)) {
      if (f === "action" || input[f] === undefined) continue;
      if (!rule.required.includes(f) && !rule.allowed.includes(f)) {
        ctx.addIssue({ code: "custom", path: [f], message: `not accepted by action ${action}` });
      }
    }
  }) as S;
}
