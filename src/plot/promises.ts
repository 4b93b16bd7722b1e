import { NbError } from "../core/errors.js";
import { parseOrThrow } from "../core/validate.js";
import type { PlotContext } from "./context.js";
import type { PlotDb } from "./db.js";
import { SaveBeatInput, SavePromiseInput } from "./inputs.js";
import { reopenPayofflessPromises } from "./promise-rules.js";
import {
  assertNameFree,
  cleanTags,
  insertRow,
  mustGet,
  nowIso,
  parseStringArray,
  updateColumns,
} from "./store.js";

export interface PromiseRow {
  id: number;
  name: string;
  title: string;
  status: "open" | "fulfilled" | "abandoned";
  fulfilled_via: "payoff" | "manual" | null;
  fulfilled_by: string | null;
  importance: string;
  summary: string;
  payoff_expectation: string | null;
  deadline_chapter_id: number | null;
  tags: string;
  note: string | null;
  created_at: string;
  updated_at: string;
}

/** Beat counts of a promise: kinds over live beats, states over all beats. */
export interface BeatStats {
  plant: number;
  advance: number;
  setback: number;
  payoff: number;
  planned: number;
  factual: number;
  archived: number;
}

export type PromiseStage = "unplanted" | "planted" | "echoed" | "paid_off";

/** A beat's state, from its scene's status. */
export function beatState(sceneStatus: string): "planned" | "factual" | "archived" {
  if (sceneStatus === "archived") return "archived";
  return sceneStatus === "written" || sceneStatus === "revised" ? "factual" : "planned";
}

/** The stage a promise has reached, from its live beats. */
export function derivedStage(s: BeatStats): PromiseStage {
  if (s.payoff > 0) return "paid_off";
  if (s.advance + s.setback > 0) return "echoed";
  return s.plant > 0 ? "planted" : "unplanted";
}

const EMPTY_STATS: BeatStats = {
  plant: 0,
  advance: 0,
  setback: 0,
  payoff: 0,
  planned: 0,
  factual: 0,
  archived: 0,
};

/** Beat stats of many promises, aggregated in one SQL query. */
export function loadBeatStats(db: PlotDb, promiseIds: number[]): Map<number, BeatStats> {
  const out = new Map<number, BeatStats>(promiseIds.map((id) => [id, { ...EMPTY_STATS }]));
  if (promiseIds.length === 0) return out;
  const rows = db
    .prepare(
      `SELECT b.promise_id AS id,
         sum(s.status <> 'archived' AND b.kind = 'plant') AS plant,
         sum(s.status <> 'archived' AND b.kind = 'advance') AS advance,
         sum(s.status <> 'archived' AND b.kind = 'setback') AS setback,
         sum(s.status <> 'archived' AND b.kind = 'payoff') AS payoff,
         sum(s.status IN ('draft','active')) AS planned,
         sum(s.status IN ('written','revised')) AS factual,
         sum(s.status = 'archived') AS archived
       FROM story_promise_beat b JOIN story_scene s ON s.id = b.scene_id
       WHERE b.promise_id IN (SELECT value FROM json_each(?)) GROUP BY b.promise_id`,
    )
    .all(JSON.stringify(promiseIds)) as (BeatStats & { id: number })[];
  for (const { id, ...stats } of rows) out.set(id, stats);
  return out;
}

/** Promise row → DTO with stats and derived stage. */
export function promiseDto(r: PromiseRow, stats: BeatStats) {
  return {
    id: r.id,
    name: r.name,
    title: r.title,
    status: r.status,
    derivedStage: derivedStage(stats),
    fulfilledVia: r.fulfilled_via,
    fulfilledBy: r.fulfilled_by,
    importance: r.importance,
    summary: r.summary,
    payoffExpectation: r.payoff_expectation,
    deadlineChapterId: r.deadline_chapter_id,
    tags: parseStringArray(r.tags),
    note: r.note,
    beatStats: stats,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
export type PromiseDto = ReturnType<typeof promiseDto>;

/** A promise with its beats in story order (chapter order, then scene order in the chapter, then thread order). */
export function getPromiseDetail(pc: PlotContext, id: number) {
  const { db } = pc;
  const row = mustGet<PromiseRow>(db, "promise", id, "/promiseId");
  const beats = (
    db
      .prepare(
        `SELECT b.id, b.scene_id, b.kind, b.note, s.title AS scene_title, s.status AS scene_status, s.chapter_id, s.thread_id
         FROM story_promise_beat b JOIN story_scene s ON s.id = b.scene_id LEFT JOIN story_chapter c ON c.id = s.chapter_id
         WHERE b.promise_id = ? ORDER BY c.sort_order IS NULL, c.sort_order, s.chapter_sort_order, s.thread_sort_order, b.id`,
      )
      .all(id) as {
      id: number;
      scene_id: number;
      kind: string;
      note: string | null;
      scene_title: string;
      scene_status: string;
      chapter_id: number | null;
      thread_id: number;
    }[]
  ).map((b) => ({
    id: b.id,
    sceneId: b.scene_id,
    kind: b.kind,
    note: b.note,
    state: beatState(b.scene_status),
    scene: {
      id: b.scene_id,
      title: b.scene_title,
      status: b.scene_status,
      chapterId: b.chapter_id,
      threadId: b.thread_id,
    },
  }));
  return { ...promiseDto(row, loadBeatStats(db, [id]).get(id)!), beats };
}
export type PromiseDetail = ReturnType<typeof getPromiseDetail>;

/** Create or update a promise, or move it through its lifecycle (fulfill, abandon, reopen). */
export function savePromise(pc: PlotContext, raw: unknown): PromiseDetail {
  const input = parseOrThrow(SavePromiseInput, raw);
  const { db } = pc;
  return db.transaction(() => {
    if (input.deadlineChapterId != null)
      mustGet(db, "chapter", input.deadlineChapterId, "/deadlineChapterId");
    const columns = {
      name: input.name,
      title: input.title,
      importance: input.importance,
      summary: input.summary,
      payoff_expectation: input.payoffExpectation,
      deadline_chapter_id: input.deadlineChapterId,
      tags: input.tags ? JSON.stringify(cleanTags(input.tags)) : undefined,
      note: input.note,
    };
    if (input.action === "create") {
      assertNameFree(db, "promise", input.name!);
      return getPromiseDetail(pc, insertRow(db, "story_promise", columns));
    }
    const id = input.promiseId!;
    const row = mustGet<PromiseRow>(db, "promise", id, "/promiseId");
    if (input.name) assertNameFree(db, "promise", input.name, id);
    const lifecycle: Record<string, unknown> = {};
    if (input.action === "fulfill") {
      if (row.status === "fulfilled" && row.fulfilled_via === "manual") {
        throw new NbError(
          "conflict",
          `Promise ${id} is already fulfilled (by ${row.fulfilled_by ?? "hand"})`,
        );
      }
      Object.assign(lifecycle, { status: "fulfilled", fulfilled_via: "manual", fulfilled_by: pc.actor });
    } else if (input.action === "abandon") {
      if (row.status === "abandoned") throw new NbError("conflict", `Promise ${id} is already abandoned`);
      Object.assign(lifecycle, { status: "abandoned", fulfilled_via: null, fulfilled_by: null });
    } else if (input.action === "reopen") {
      if (row.status === "open") throw new NbError("conflict", `Promise ${id} is already open`);
      Object.assign(lifecycle, { status: "open", fulfilled_via: null, fulfilled_by: null });
    }
    updateColumns(db, "story_promise", id, { ...columns, ...lifecycle });
    return getPromiseDetail(pc, id);
  })();
}

/**
 * Set or remove the beat of a promise on a scene (at most one per pair). A payoff on a live scene
 * fulfils an open promise unless autoFulfill is false; losing the last live payoff reopens a
 * promise that a payoff fulfilled (never one fulfilled by hand).
 */
export function saveBeat(pc: PlotContext, raw: unknown): PromiseDetail {
  const input = parseOrThrow(SaveBeatInput, raw);
  const { db } = pc;
  return db.transaction(() => {
    const promise = mustGet<PromiseRow>(db, "promise", input.promiseId, "/promiseId");
    const scene = mustGet<{ status: string }>(db, "scene", input.sceneId, "/sceneId");
    const existing = db
      .prepare("SELECT id, kind, note FROM story_promise_beat WHERE promise_id = ? AND scene_id = ?")
      .get(input.promiseId, input.sceneId) as { id: number; kind: string; note: string | null } | undefined;
    if (input.action === "remove") {
      if (!existing) {
        throw new NbError("not_found", `Promise ${input.promiseId} has no beat on scene ${input.sceneId}`);
      }
      db.prepare("DELETE FROM story_promise_beat WHERE id = ?").run(existing.id);
      reopenPayofflessPromises(db, [input.promiseId]);
      return getPromiseDetail(pc, input.promiseId);
    }
    const now = nowIso();
    const note = input.note === undefined ? (existing?.note ?? null) : input.note;
    db.prepare(
      `INSERT INTO story_promise_beat (promise_id, scene_id, kind, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (promise_id, scene_id) DO UPDATE SET kind = excluded.kind, note = excluded.note, updated_at = excluded.updated_at`,
    ).run(input.promiseId, input.sceneId, input.kind, note, now, now);
    if (input.kind === "payoff") {
      if (input.autoFulfill !== false && promise.status === "open" && scene.status !== "archived") {
        updateColumns(db, "story_promise", promise.id, {
          status: "fulfilled",
          fulfilled_via: "payoff",
          fulfilled_by: pc.actor,
        });
      }
    } else if (existing?.kind === "payoff") {
      reopenPayofflessPromises(db, [input.promiseId]);
    }
    return getPromiseDetail(pc, input.promiseId);
  })();
}
