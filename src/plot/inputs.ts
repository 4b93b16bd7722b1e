import { z } from "zod";
import {
  ANCHOR_KIND,
  BEAT_KIND,
  BriefInput,
  CARRIER_STATUS,
  FilledText,
  Id,
  IMPORTANCE,
  LIMITS,
  MICE_TYPE,
  Note,
  NullableText,
  OUTCOME_TYPE,
  PACING_ROLE,
  Placement,
  SCENE_STATUS,
  SceneRefInput,
  Slug,
  Tags,
  Text,
  THREAD_STATUS,
  Title,
  WorldAnchorInput,
  WritingTip,
  withActionRules,
} from "./schemas.js";

/**
 * The write inputs of the plot services: one strict zod object per entity with a required
 * `action`, and per-action required/accepted fields. Services parse with these; the agent tools use
 * the same schemas as their input, so every caller meets the same rules.
 */

const order = Placement.optional().describe("where to put it: {before: id} | {after: id} | {position: n}");

/** The action and fields acts and phases share (both are groups: see groups.ts). */
const groupAction = z.enum(["create", "update", "archive"]);
const groupFields = {
  name: Slug.optional(),
  title: Title.optional(),
  summary: Text.optional(),
  note: Note.optional(),
  status: z.enum(CARRIER_STATUS).optional().describe("update only: active un-archives"),
  order,
};

/** The per-action rules of a group whose id travels in `idField`. */
function groupRules(idField: string) {
  return {
    create: { required: ["name", "title"], allowed: ["summary", "note", "order"] },
    update: { required: [idField], allowed: ["name", "title", "summary", "note", "status", "order"] },
    archive: { required: [idField], allowed: [] },
  };
}

export const SaveActInput = withActionRules(
  z.object({ action: groupAction, actId: Id.optional(), ...groupFields }).strict(),
  groupRules("actId"),
);
export type SaveActInput = z.infer<typeof SaveActInput>;

export const SavePhaseInput = withActionRules(
  z.object({ action: groupAction, phaseId: Id.optional(), ...groupFields }).strict(),
  groupRules("phaseId"),
);
export type SavePhaseInput = z.infer<typeof SavePhaseInput>;

export const SaveChapterInput = withActionRules(
  z
    .object({
      action: z.enum(["create", "update", "archive"]),
      chapterId: Id.optional(),
      actId: Id.nullable().optional().describe("act to group it under; null ungroups"),
      name: Slug.optional(),
      title: Title.optional(),
      note: Note.optional(),
      status: z.enum(CARRIER_STATUS).optional(),
      brief: BriefInput.optional().describe("brief fields to set; null clears one, omitted keeps it"),
      order: order.describe("story-wide reading position among chapters"),
    })
    .strict(),
  {
    create: { required: ["name", "title"], allowed: ["actId", "note", "brief", "order"] },
    update: {
      required: ["chapterId"],
      allowed: ["actId", "name", "title", "note", "status", "brief", "order"],
    },
    archive: { required: ["chapterId"], allowed: [] },
  },
);
export type SaveChapterInput = z.infer<typeof SaveChapterInput>;

export const SaveThreadInput = withActionRules(
  z
    .object({
      action: z.enum(["create", "update", "archive"]),
      threadId: Id.optional(),
      phaseId: Id.nullable().optional(),
      name: Slug.optional(),
      title: Title.optional(),
      isMain: z.boolean().optional(),
      status: z.enum(THREAD_STATUS).optional(),
      miceType: z.enum(MICE_TYPE).nullable().optional(),
      summary: Text.optional(),
      tags: Tags.optional(),
      writingTip: WritingTip.optional(),
      note: Note.optional(),
      order: order.describe("position within its phase (or the ungrouped threads)"),
    })
    .strict(),
  {
    create: {
      required: ["name", "title"],
      allowed: ["phaseId", "isMain", "status", "miceType", "summary", "tags", "writingTip", "note", "order"],
    },
    update: {
      required: ["threadId"],
      allowed: [
        "phaseId",
        "name",
        "title",
        "isMain",
        "status",
        "miceType",
        "summary",
        "tags",
        "writingTip",
        "note",
        "order",
      ],
    },
    archive: { required: ["threadId"], allowed: [] },
  },
);
export type SaveThreadInput = z.infer<typeof SaveThreadInput>;

const sceneFields = [
  "chapterId",
  "status",
  "outcomeType",
  "pacingRole",
  "summary",
  "purpose",
  "writingTip",
  "note",
  "refs",
  "worldAnchor",
  "chapterOrder",
  "threadOrder",
] as const;

export const SaveSceneInput = withActionRules(
  z
    .object({
      action: z.enum(["create", "update", "archive"]),
      sceneId: Id.optional(),
      threadId: Id.optional().describe("thread the scene belongs to; on update moves it"),
      chapterId: Id.nullable().optional().describe("chapter to place it in; null takes it out"),
      title: Title.optional(),
      status: z.enum(SCENE_STATUS).optional(),
      outcomeType: z.enum(OUTCOME_TYPE).nullable().optional(),
      pacingRole: z.enum(PACING_ROLE).nullable().optional(),
      summary: Text.optional(),
      purpose: NullableText.optional(),
      writingTip: WritingTip.optional(),
      note: Note.optional(),
      refs: z.array(SceneRefInput).max(LIMITS.refs).optional().describe("replaces the whole ref list"),
      worldAnchor: WorldAnchorInput.optional().describe("omitted keys keep their value; null clears"),
      chapterOrder: order.describe("position among the chapter's scenes"),
      threadOrder: order.describe("causal position within the thread"),
    })
    .strict(),
  {
    create: { required: ["threadId", "title"], allowed: sceneFields },
    update: { required: ["sceneId"], allowed: ["threadId", "title", ...sceneFields] },
    archive: { required: ["sceneId"], allowed: [] },
  },
);
export type SaveSceneInput = z.infer<typeof SaveSceneInput>;

const promiseFields = [
  "importance",
  "summary",
  "payoffExpectation",
  "deadlineChapterId",
  "tags",
  "note",
] as const;

export const SavePromiseInput = withActionRules(
  z
    .object({
      action: z.enum(["create", "update", "fulfill", "abandon", "reopen"]),
      promiseId: Id.optional(),
      name: Slug.optional(),
      title: Title.optional(),
      importance: z.enum(IMPORTANCE).optional(),
      summary: Text.optional(),
      payoffExpectation: NullableText.optional(),
      deadlineChapterId: Id.nullable().optional(),
      tags: Tags.optional(),
      note: Note.optional(),
    })
    .strict(),
  {
    create: { required: ["name", "title"], allowed: promiseFields },
    update: { required: ["promiseId"], allowed: ["name", "title", ...promiseFields] },
    fulfill: { required: ["promiseId"], allowed: [] },
    abandon: { required: ["promiseId"], allowed: ["note"] },
    reopen: { required: ["promiseId"], allowed: [] },
  },
);
export type SavePromiseInput = z.infer<typeof SavePromiseInput>;

export const SaveBeatInput = withActionRules(
  z
    .object({
      action: z.enum(["set", "remove"]),
      promiseId: Id,
      sceneId: Id,
      kind: z.enum(BEAT_KIND).optional(),
      note: Note.optional(),
      autoFulfill: z.boolean().optional().describe("payoff only: false keeps the promise open"),
    })
    .strict(),
  {
    set: { required: ["promiseId", "sceneId", "kind"], allowed: ["note", "autoFulfill"] },
    remove: { required: ["promiseId", "sceneId"], allowed: [] },
  },
);
export type SaveBeatInput = z.infer<typeof SaveBeatInput>;

const OptionInput = z.object({ option: FilledText, note: Note.optional() }).strict();
const RejectedInput = z.object({ option: FilledText, whyRejected: Note.optional() }).strict();
const DecisionRef = z
  .string()
  .trim()
  .min(1)
  .max(LIMITS.path)
  .describe("promise://<id>, decision://<id>, thread://<id|name>, scene://<id>, or a project-relative path");
const AnchorInput = z
  .object({
    kind: z.enum(ANCHOR_KIND),
    id: Id.optional(),
    path: z.string().trim().min(1).max(LIMITS.path).optional(),
  })
  .strict();

const decisionFrame = ["options", "deadlineChapterId", "serves", "dependsOn", "anchor", "note"] as const;

export const SaveDecisionInput = withActionRules(
  z
    .object({
      action: z.enum(["create", "update", "sign_off", "void", "supersede", "reopen"]),
      decisionId: Id.optional(),
      name: Slug.optional(),
      title: Title.optional(),
      question: FilledText.optional(),
      options: z.array(OptionInput).max(LIMITS.options).optional(),
      deadlineChapterId: Id.nullable().optional(),
      serves: z.array(DecisionRef).max(LIMITS.refs).optional(),
      dependsOn: z.array(DecisionRef).max(LIMITS.refs).optional(),
      anchor: AnchorInput.optional().describe("what the decision is about; default story"),
      note: Note.optional(),
      conclusion: FilledText.optional(),
      reason: FilledText.optional(),
      risk: FilledText.optional(),
      chosenOption: FilledText.optional(),
      rejectedAlternatives: z.array(RejectedInput).max(LIMITS.options).optional(),
      voidReason: FilledText.optional(),
      supersededById: Id.optional(),
    })
    .strict(),
  {
    create: { required: ["name", "title", "question"], allowed: decisionFrame },
    update: {
      required: ["decisionId"],
      allowed: [
        "name",
        "title",
        "question",
        ...decisionFrame,
        "conclusion",
        "reason",
        "risk",
        "rejectedAlternatives",
      ],
    },
    sign_off: {
      required: ["decisionId", "conclusion", "reason", "risk"],
      allowed: ["chosenOption", "rejectedAlternatives", "note"],
    },
    void: { required: ["decisionId", "voidReason"], allowed: [] },
    supersede: { required: ["decisionId", "supersededById"], allowed: [] },
    reopen: { required: ["decisionId"], allowed: [] },
  },
);
export type SaveDecisionInput = z.infer<typeof SaveDecisionInput>;
