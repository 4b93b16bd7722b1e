import {
  saveAct,
  saveBeat,
  saveChapter,
  saveDecision,
  savePromise,
  saveScene,
  saveThread,
} from "../../plot/index.js";
import {
  SaveActInput,
  SaveBeatInput,
  SaveChapterInput,
  SaveDecisionInput,
  SavePromiseInput,
  SaveSceneInput,
  SaveThreadInput,
} from "../../plot/inputs.js";
import { ENTITY, type EntityKind } from "../../plot/store.js";
import { defineTool } from "../define.js";
import type { ToolContext, ToolPreview } from "../types.js";
import { jsonResult, plotFor } from "./common.js";

const SHORT = 160;

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? "null";
  return s.length > SHORT ? `${s.slice(0, SHORT - 1)}…` : s;
}

/** Name a stored row for a preview: `scene 12 "The duel"`, or a note that it does not exist. */
function describeRow(ctx: ToolContext, kind: EntityKind, id: number): string {
  const row = plotFor(ctx).db.prepare(`SELECT * FROM ${ENTITY[kind].table} WHERE id = ?`).get(id) as
    | { title?: string }
    | undefined;
  return row ? `${kind} ${id} "${row.title}"` : `${kind} ${id} (does not exist)`;
}

/** What a save_* call would change, for the approval a read-only mode raises. */
function previewSave(
  key: string,
  kind: EntityKind,
  idKey: string,
  input: Record<string, unknown>,
  ctx: ToolContext,
): ToolPreview {
  const id = input[idKey] as number | undefined;
  const target = id === undefined ? `a new ${kind}` : describeRow(ctx, kind, id);
  const fields = Object.keys(input).filter((k) => k !== "action" && k !== idKey && input[k] !== undefined);
  const lines = [`${key} ${String(input.action)} → ${target}`];
  for (const f of fields) lines.push(`  ${f} = ${short(input[f])}`);
  return { text: lines.join("\n"), details: { action: input.action, kind, id: id ?? null, fields } };
}

const NO_DELETE = "Agents cannot delete; archive instead (the user can delete from the CLI/UI).";

export const saveStoryActTool = defineTool({
  key: "save_story_act",
  group: "plot",
  description: `Create, update or archive an act (volume). create needs name (slug) and title; update/archive need actId; order: {before|after: actId} or {position}. ${NO_DELETE}`,
  input: SaveActInput,
  effect: "write",
  preview: (input, ctx) => previewSave("save_story_act", "act", "actId", input, ctx),
  execute: (input, ctx) => jsonResult(saveAct(plotFor(ctx), input)),
});

export const saveStoryChapterTool = defineTool({
  key: "save_story_chapter",
  group: "plot",
  description: `Create, update or archive a chapter, including its eleven brief fields (goal, pov, tone, pacing, readerKnows, protagonistKnows, mustHide, hintOnly, opening, ending, doNotWrite; null clears one). create needs name (slug) and title; order places it in the story-wide chapter order. ${NO_DELETE}`,
  input: SaveChapterInput,
  effect: "write",
  preview: (input, ctx) => previewSave("save_story_chapter", "chapter", "chapterId", input, ctx),
  execute: (input, ctx) => jsonResult(saveChapter(plotFor(ctx), input)),
});

export const saveStoryThreadTool = defineTool({
  key: "save_story_thread",
  group: "plot",
  description: `Create, update or archive a thread (a causal, conflict or growth line). create needs name (slug) and title; order places it within its phase. ${NO_DELETE}`,
  input: SaveThreadInput,
  effect: "write",
  preview: (input, ctx) => previewSave("save_story_thread", "thread", "threadId", input, ctx),
  execute: (input, ctx) => jsonResult(saveThread(plotFor(ctx), input)),
});

export const saveStorySceneTool = defineTool({
  key: "save_story_scene",
  group: "plot",
  description: `Create, update or archive a scene. create needs threadId and title. chapterId places it in a chapter (null takes it out); chapterOrder/threadOrder move it ({before|after: sceneId} or {position}). worldAnchor: startTime/endTime as calendar strings (or startInstant/endInstant in seconds), subjectIds, locationSubjectId. refs replace the whole list (targets: a project path, thread://<id|name>, scene://<id>). Archiving takes the scene's payoffs out of its promises. ${NO_DELETE}`,
  input: SaveSceneInput,
  effect: "write",
  preview: (input, ctx) => previewSave("save_story_scene", "scene", "sceneId", input, ctx),
  execute: (input, ctx) => jsonResult(saveScene(plotFor(ctx), input)),
});

export const saveStoryPromiseTool = defineTool({
  key: "save_story_promise",
  group: "plot",
  description:
    "Create or update a reader promise, or move it through its lifecycle: fulfill (by hand; never reopened automatically), abandon, reopen. create needs name (slug) and title. Agents cannot delete promises; abandon instead.",
  input: SavePromiseInput,
  effect: "write",
  preview: (input, ctx) => previewSave("save_story_promise", "promise", "promiseId", input, ctx),
  execute: (input, ctx) => jsonResult(savePromise(plotFor(ctx), input)),
});

export const savePromiseBeatTool = defineTool({
  key: "save_promise_beat",
  group: "plot",
  description:
    "Set or remove the beat of a promise on a scene (plant, advance, setback, payoff; one per promise and scene). A payoff on a live scene fulfils an open promise unless autoFulfill: false; removing the last live payoff reopens a promise a payoff fulfilled. Returns the promise.",
  input: SaveBeatInput,
  effect: "write",
  preview: (input, ctx) => ({
    text: `save_promise_beat ${input.action} → ${describeRow(ctx, "promise", input.promiseId)} on ${describeRow(ctx, "scene", input.sceneId)}${input.kind ? `\n  kind = ${input.kind}` : ""}${input.note !== undefined ? `\n  note = ${short(input.note)}` : ""}`,
    details: {
      action: input.action,
      promiseId: input.promiseId,
      sceneId: input.sceneId,
      kind: input.kind ?? null,
    },
  }),
  execute: (input, ctx) => jsonResult(saveBeat(plotFor(ctx), input)),
});

export const saveStoryDecisionTool = defineTool({
  key: "save_story_decision",
  group: "plot",
  description:
    "Create or update a decision record, or move it through its lifecycle: sign_off (needs conclusion, reason, risk; chosenOption or rejectedAlternatives), void (needs voidReason), supersede (needs supersededById of a decided decision), reopen. create needs name (slug), title and question. serves/dependsOn: promise://<id>, decision://<id>, thread://<id>, scene://<id> or a project path. Agents cannot delete decisions; void instead.",
  input: SaveDecisionInput,
  effect: "write",
  preview: (input, ctx) => previewSave("save_story_decision", "decision", "decisionId", input, ctx),
  execute: (input, ctx) => jsonResult(saveDecision(plotFor(ctx), input)),
});

/** The seven plot write tools. */
export const plotWriteTools = [
  saveStoryActTool,
  saveStoryChapterTool,
  saveStoryThreadTool,
  saveStorySceneTool,
  saveStoryPromiseTool,
  savePromiseBeatTool,
  saveStoryDecisionTool,
];
