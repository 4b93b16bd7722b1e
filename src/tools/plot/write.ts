import type { z } from "zod";
import { recordPlotRows } from "../../plot/change-log.js";
import type { PlotDb } from "../../plot/db.js";
import {
  type PlotContext,
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
import type { RunGrant, ToolContext, ToolPreview, ToolResult } from "../types.js";
import { assertRowsUnchanged, type PlotBasis, plotBasis, plotBasisSpec } from "./basis.js";
import { jsonResult, plotFor } from "./common.js";

const SHORT = 160;

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? "null";
  return s.length > SHORT ? `${s.slice(0, SHORT - 1)}…` : s;
}

/** Name a stored row for a preview: `scene 12 "The duel"`, or a note that it does not exist. */
function describeRow(db: PlotDb, kind: EntityKind, id: number): string {
  const row = db.prepare(`SELECT * FROM ${ENTITY[kind].table} WHERE id = ?`).get(id) as
    | { title?: string }
    | undefined;
  return row ? `${kind} ${id} "${row.title}"` : `${kind} ${id} (does not exist)`;
}

/** What a save_* call would change, for the approval a read-only mode raises; pinned to the row it names. */
function previewSave(db: PlotDb, key: string, kind: EntityKind, input: Record<string, unknown>): ToolPreview {
  const idKey = `${kind}Id`;
  const id = input[idKey] as number | undefined;
  const target = id === undefined ? `a new ${kind}` : describeRow(db, kind, id);
  const fields = Object.keys(input).filter((k) => k !== "action" && k !== idKey && input[k] !== undefined);
  const lines = [`${key} ${String(input.action)} → ${target}`];
  for (const f of fields) lines.push(`  ${f} = ${short(input[f])}`);
  return {
    text: lines.join("\n"),
    details: { action: input.action, kind, id: id ?? null, fields },
    basis: plotBasis(db, id === undefined ? [] : [{ kind, id }]),
  };
}

/** A stored row a plot write names. */
type RowRef = { kind: EntityKind; id: number };

/** The row a save created or changed, when its result names one. */
function savedRow(kind: EntityKind, saved: unknown): RowRef[] {
  if (typeof saved !== "object" || saved === null || !("id" in saved)) return [];
  return typeof saved.id === "number" ? [{ kind, id: saved.id }] : [];
}

/**
 * Run a plot write; one approved against a preview first checks, in the same transaction, that
 * the rows the preview described are as they were. Its record carries the bases of the rows it
 * named before the save and of those (and the row it saved) after.
 */
async function runSave(
  ctx: ToolContext,
  key: string,
  grant: RunGrant<PlotBasis>,
  spec: {
    named: RowRef[];
    saved: (value: unknown) => RowRef[];
    summary: string;
    preview: (db: PlotDb) => ToolPreview;
    save: (pc: PlotContext) => unknown;
  },
): Promise<ToolResult> {
  const pc = await plotFor(ctx);
  const { value, before, after } = recordPlotRows(pc.db, grant.changeId, () => {
    assertRowsUnchanged(pc.db, grant.approval?.basis, key, () => spec.preview(pc.db));
    const before = plotBasis(pc.db, spec.named);
    const value = spec.save(pc);
    const rows = [...spec.named, ...spec.saved(value)];
    const unique = rows.filter((r, i) => rows.findIndex((o) => o.kind === r.kind && o.id === r.id) === i);
    return { value, before, after: plotBasis(pc.db, unique) };
  });
  return { ...jsonResult(value), change: { targets: null, rows: { before, after }, summary: spec.summary } };
}

/**
 * A save_* tool for one kind of row: the service does the work, the preview names the row
 * (`<kind>Id` in the input) and the fields the call sets.
 */
function saveTool<S extends z.ZodObject>(spec: {
  key: string;
  description: string;
  input: S;
  kind: EntityKind;
  save: (pc: PlotContext, input: unknown) => unknown;
}) {
  return defineTool({
    key: spec.key,
    group: "plot",
    description: spec.description,
    input: spec.input,
    effect: "write",
    basis: plotBasisSpec(spec.key),
    prepare: (input, ctx) => {
      const fields: Record<string, unknown> = input;
      const id = fields[`${spec.kind}Id`];
      const named = typeof id === "number" ? [{ kind: spec.kind, id }] : [];
      return {
        effect: "write",
        targets: null,
        preview: async () => previewSave((await plotFor(ctx)).db, spec.key, spec.kind, input),
        run: (grant) =>
          runSave(ctx, spec.key, grant, {
            named,
            saved: (value) => savedRow(spec.kind, value),
            summary: `${spec.key} ${String(fields.action)} ${spec.kind}${typeof id === "number" ? ` ${id}` : ""}`,
            preview: (db) => previewSave(db, spec.key, spec.kind, input),
            save: (pc) => spec.save(pc, input),
          }),
      };
    },
  });
}

const NO_DELETE = "Agents cannot delete; archive instead (the user can delete from the CLI/UI).";

export const saveStoryActTool = saveTool({
  key: "save_story_act",
  description: `Create, update or archive an act (volume). create needs name (slug) and title; update/archive need actId; order: {before|after: actId} or {position}. ${NO_DELETE}`,
  input: SaveActInput,
  kind: "act",
  save: saveAct,
});

export const saveStoryChapterTool = saveTool({
  key: "save_story_chapter",
  description: `Create, update or archive a chapter, including its eleven brief fields (goal, pov, tone, pacing, readerKnows, protagonistKnows, mustHide, hintOnly, opening, ending, doNotWrite; null clears one). create needs name (slug) and title; order places it in the story-wide chapter order. ${NO_DELETE}`,
  input: SaveChapterInput,
  kind: "chapter",
  save: saveChapter,
});

export const saveStoryThreadTool = saveTool({
  key: "save_story_thread",
  description: `Create, update or archive a thread (a causal, conflict or growth line). create needs name (slug) and title; order places it within its phase. ${NO_DELETE}`,
  input: SaveThreadInput,
  kind: "thread",
  save: saveThread,
});

export const saveStorySceneTool = saveTool({
  key: "save_story_scene",
  description: `Create, update or archive a scene. create needs threadId and title. chapterId places it in a chapter (null takes it out); chapterOrder/threadOrder move it ({before|after: sceneId} or {position}). worldAnchor: startTime/endTime as calendar strings (or startInstant/endInstant in seconds), subjectIds, locationSubjectId. refs replace the whole list (targets: a project path, thread://<id|name>, scene://<id>). Archiving takes the scene's payoffs out of its promises. ${NO_DELETE}`,
  input: SaveSceneInput,
  kind: "scene",
  save: saveScene,
});

export const saveStoryPromiseTool = saveTool({
  key: "save_story_promise",
  description:
    "Create or update a reader promise, or move it through its lifecycle: fulfill (by hand; never reopened automatically), abandon, reopen. create needs name (slug) and title. Agents cannot delete promises; abandon instead.",
  input: SavePromiseInput,
  kind: "promise",
  save: savePromise,
});

/** What save_promise_beat would change; pinned to the promise and the scene it names. */
function previewBeat(db: PlotDb, input: z.infer<typeof SaveBeatInput>): ToolPreview {
  return {
    text: `save_promise_beat ${input.action} → ${describeRow(db, "promise", input.promiseId)} on ${describeRow(db, "scene", input.sceneId)}${input.kind ? `\n  kind = ${input.kind}` : ""}${input.note !== undefined ? `\n  note = ${short(input.note)}` : ""}`,
    details: {
      action: input.action,
      promiseId: input.promiseId,
      sceneId: input.sceneId,
      kind: input.kind ?? null,
    },
    basis: plotBasis(db, [
      { kind: "promise", id: input.promiseId },
      { kind: "scene", id: input.sceneId },
    ]),
  };
}

export const savePromiseBeatTool = defineTool({
  key: "save_promise_beat",
  group: "plot",
  description:
    "Set or remove the beat of a promise on a scene (plant, advance, setback, payoff; one per promise and scene). A payoff on a live scene fulfils an open promise unless autoFulfill: false; removing the last live payoff reopens a promise a payoff fulfilled. Returns the promise.",
  input: SaveBeatInput,
  effect: "write",
  basis: plotBasisSpec("save_promise_beat"),
  prepare: (input, ctx) => ({
    effect: "write",
    targets: null,
    preview: async () => previewBeat((await plotFor(ctx)).db, input),
    run: (grant) =>
      runSave(ctx, "save_promise_beat", grant, {
        named: [
          { kind: "promise", id: input.promiseId },
          { kind: "scene", id: input.sceneId },
        ],
        saved: () => [],
        summary: `save_promise_beat ${input.action} promise ${input.promiseId} on scene ${input.sceneId}`,
        preview: (db) => previewBeat(db, input),
        save: (pc) => saveBeat(pc, input),
      }),
  }),
});

export const saveStoryDecisionTool = saveTool({
  key: "save_story_decision",
  description:
    "Create or update a decision record, or move it through its lifecycle: sign_off (needs conclusion, reason, risk; chosenOption or rejectedAlternatives), void (needs voidReason), supersede (needs supersededById of a decided decision), reopen. create needs name (slug), title and question. serves/dependsOn: promise://<id>, decision://<id>, thread://<id>, scene://<id> or a project path. Agents cannot delete decisions; void instead.",
  input: SaveDecisionInput,
  kind: "decision",
  save: saveDecision,
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
