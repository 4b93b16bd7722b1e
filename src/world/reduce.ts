import type { PatchOp } from "./api.js";
import type { PatchRow, Statements } from "./db.js";
import { collectAppended, collectEntries, type Entry, entryKey, walkDeclaredRefs } from "./entries.js";
import { cloneJson, type JsonObject, REF_PREFIX, refTarget } from "./json.js";
import { applyPatch, type OpFailure, type OpSemantics } from "./ops.js";
import { pathsOverlap, pointerProblem, segmentsOf } from "./pointer.js";
import { isTextContainer, resolvePath, type WorldSchema } from "./schema.js";

/** Lower bound below every instant. */
export const BEFORE_TIME = Number.MIN_SAFE_INTEGER - 1;
/** By default a checkpoint is stored once this many patches of a subject have been folded since the last one. */
export const CHECKPOINT_EVERY = 32;

/** The replay semantics a schema gives one subject type. */
export function semanticsFor(schema: WorldSchema, type: string): OpSemantics {
  const spec = (segs: readonly string[]) => {
    const r = resolvePath(schema, type, segs);
    return r.kind === "declared" ? r.spec : null;
  };
  return {
    isSet: (segs) => spec(segs)?.type === "set",
    isInt: (segs) => spec(segs)?.type === "int",
    isTextContainer: (segs) => {
      const s = spec(segs);
      return s ? isTextContainer(s) : false;
    },
  };
}

/** Apply one stored patch row to a state. */
export function applyRow(state: JsonObject, row: PatchRow, sem: OpSemantics): OpFailure | null {
  if (pointerProblem(row.path)) return { label: "E3", message: `not a valid JSON Pointer: ${row.path}` };
  const value = row.value === null ? undefined : JSON.parse(row.value);
  return applyPatch(state, row.op as PatchOp, segmentsOf(row.path), value, sem);
}

/**
 * The incremental reducer: keeps each subject's latest state, checkpoints, E issues and the
 * live intervals of its references and text entries up to date from a changed instant on.
 */
export class Reducer {
  constructor(
    private readonly st: Statements,
    private readonly schema: () => WorldSchema,
    private readonly checkpointEvery = CHECKPOINT_EVERY,
    private readonly onRecompute: (subjectId: string) => void = () => {},
  ) {}

  /** State of a subject after every patch at or before `at` (latest when `at` is undefined). */
  stateAt(subjectId: string, type: string, at?: number): JsonObject {
    const latest = this.st.latest.get(subjectId);
    if (!latest) return {};
    if (at === undefined || latest.last_instant === null || at >= latest.last_instant)
      return JSON.parse(latest.state);
    const cp = this.st.checkpointAtOrBefore.get(subjectId, at);
    const state: JsonObject = cp ? JSON.parse(cp.state) : {};
    const sem = semanticsFor(this.schema(), type);
    for (const row of this.st.patchesBetween.all(subjectId, cp ? cp.instant : BEFORE_TIME, at))
      applyRow(state, row, sem);
    return state;
  }

  /**
   * States of a subject at each of `ats` (ascending), walking its history once: an instant
   * continues from the previous one unless a checkpoint lies between them, which is a nearer start.
   */
  statesAt(subjectId: string, type: string, ats: readonly number[]): JsonObject[] {
    const latest = this.st.latest.get(subjectId);
    if (!latest) return ats.map(() => ({}));
    const last = latest.last_instant;
    const sem = semanticsFor(this.schema(), type);
    const out: JsonObject[] = [];
    let state: JsonObject = {};
    // The instant `state` stands at; null until the walk starts.
    let pos: number | null = null;
    // True once `state` has been handed out: it is copied before it changes or is handed out again.
    let shared = false;
    for (const at of ats) {
      if (last === null || at >= last) {
        out.push(JSON.parse(latest.state));
        continue;
      }
      const cp = this.st.checkpointAtOrBefore.get(subjectId, at);
      if (pos === null || (cp && cp.instant > pos)) {
        state = cp ? JSON.parse(cp.state) : {};
        pos = cp ? cp.instant : BEFORE_TIME;
        shared = false;
      }
      for (const row of this.st.patchesBetween.all(subjectId, pos, at)) {
        if (shared) {
          state = cloneJson(state);
          shared = false;
        }
        applyRow(state, row, sem);
      }
      pos = at;
      out.push(shared ? cloneJson(state) : state);
      shared = true;
    }
    return out;
  }

  /** Recompute everything derived for one subject from instant `from` on. */
  recompute(subjectId: string, type: string, from: number): void {
    this.onRecompute(subjectId);
    const st = this.st;
    const schema = this.schema();
    const typeSpec = schema.types[type];
    const sem = semanticsFor(schema, type);
    const cp = st.checkpointBefore.get(subjectId, from);
    st.deleteCheckpointsFrom.run(subjectId, from);
    st.deleteIssuesFrom.run(subjectId, from);
    st.deleteRefsFrom.run(subjectId, from);
    st.reopenRefsFrom.run(subjectId, from);
    st.deleteTextsFrom.run(subjectId, from);
    st.reopenTextsFrom.run(subjectId, from);
    const open = new Map<string, number>();
    for (const r of st.openRefs.all(subjectId)) open.set(entryKey("ref", r.attr, r.target), r.id);
    for (const t of st.openTexts.all(subjectId)) open.set(entryKey("text", t.attr, t.body), t.id);

    const state: JsonObject = cp ? JSON.parse(cp.state) : {};
    const rows = st.patchesAfter.all(subjectId, cp ? cp.instant : BEFORE_TIME);
    let lastInstant: number | null = cp ? cp.instant : null;
    let sinceCheckpoint = 0;
    for (let i = 0; i < rows.length; ) {
      const instant = rows[i].instant;
      let j = i;
      while (j < rows.length && rows[j].instant === instant) j++;
      const group = rows.slice(i, j);
      i = j;
      lastInstant = instant;
      sinceCheckpoint += group.length;
      if (instant < from) {
        for (const row of group) applyRow(state, row, sem);
        continue;
      }
      // Appends to a top-level array only add entries; other ops may change any entry under their attribute.
      const tops = new Set<string>();
      const appendOnly = new Map<string, number>();
      for (const row of group) {
        if (pointerProblem(row.path)) continue;
        const segs = segmentsOf(row.path);
        if (row.op === "append" && segs.length === 1 && !tops.has(segs[0])) {
          const arr = state[segs[0]];
          if (!appendOnly.has(segs[0])) appendOnly.set(segs[0], Array.isArray(arr) ? arr.length : 0);
        } else {
          tops.add(segs[0]);
          appendOnly.delete(segs[0]);
        }
      }
      const before = collectEntries(state, tops, typeSpec);
      for (const row of group) {
        const f = applyRow(state, row, sem);
        if (f)
          st.insertIssue.run(subjectId, row.slice_id, row.id, instant, f.label, row.path, row.op, f.message);
      }
      const after = collectEntries(state, tops, typeSpec);
      for (const [top, from] of appendOnly)
        for (const [k, e] of collectAppended(state, top, from, typeSpec)) after.set(k, e);
      this.diffEntries(subjectId, instant, before, after, open);
      if (sinceCheckpoint >= this.checkpointEvery) {
        st.insertCheckpoint.run(subjectId, instant, JSON.stringify(state));
        sinceCheckpoint = 0;
      }
    }
    this.checkDangling(subjectId, type, state);
    st.putLatest.run(subjectId, JSON.stringify(state), lastInstant);
  }

  /** Recompute only the dangling-reference issues (E2) of a subject's latest state. */
  recheckDangling(subjectId: string, type: string): void {
    this.st.deleteE2.run(subjectId);
    this.checkDangling(subjectId, type, this.stateAt(subjectId, type));
  }

  private checkDangling(subjectId: string, type: string, state: JsonObject): void {
    const typeSpec = this.schema().types[type];
    const found: Array<{ attr: string; message: string }> = [];
    walkDeclaredRefs(state, typeSpec, (attr, value, to) => {
      const target = refTarget(value);
      if (target === null) {
        found.push({ attr, message: `${JSON.stringify(value)} is not a ${REF_PREFIX}<id> reference` });
        return;
      }
      const s = this.st.subject.get(target);
      if (!s) found.push({ attr, message: `${REF_PREFIX}${target} names no subject` });
      else if (to !== undefined && s.type !== to)
        found.push({ attr, message: `${REF_PREFIX}${target} is a ${s.type}, not a ${to}` });
    });
    if (!found.length) return;
    const history = this.st.lastPatchesOfSubject.all(subjectId);
    for (const f of found) {
      const segs = segmentsOf(f.attr);
      const origin = history.find((p) => !pointerProblem(p.path) && pathsOverlap(segmentsOf(p.path), segs));
      this.st.insertIssue.run(subjectId, origin?.slice_id ?? null, null, null, "E2", f.attr, null, f.message);
    }
  }

  private diffEntries(
    subjectId: string,
    instant: number,
    before: Map<string, Entry>,
    after: Map<string, Entry>,
    open: Map<string, number>,
  ): void {
    const st = this.st;
    for (const [key, e] of before) {
      if (after.has(key)) continue;
      const id = open.get(key);
      if (id === undefined) continue;
      if (e.kind === "ref") st.closeRef.run(instant, id);
      else st.closeText.run(instant, id);
      open.delete(key);
    }
    for (const [key, e] of after) {
      if (before.has(key)) continue;
      if (e.kind === "ref") {
        const r = st.insertRef.run(subjectId, e.attr, e.value, instant);
        open.set(key, Number(r.lastInsertRowid));
      } else {
        const r = st.insertText.run(subjectId, segmentsOf(e.attr)[0], e.attr, this.bodyId(e.value), instant);
        open.set(key, Number(r.lastInsertRowid));
      }
    }
  }

  private bodyId(body: string): number {
    const row = this.st.bodyId.get(body);
    if (row) return row.id;
    const id = Number(this.st.insertBody.run(body).lastInsertRowid);
    this.st.insertBodyFts.run(id, body);
    return id;
  }
}
