import type { PatchOp } from "./api.js";
import type { PatchRow, Statements } from "./db.js";
import {
  collectAppended,
  collectEntries,
  type Entry,
  entryKey,
  holdsRef,
  walkDeclaredRefs,
} from "./entries.js";
import { cloneJson, type JsonObject, REF_PREFIX, refTarget } from "./json.js";
import { applyPatch, type OpFailure, type OpSemantics } from "./ops.js";
import { pathsOverlap, pointerProblem, segmentsOf } from "./pointer.js";
import { isTextContainer, resolvePath, type TypeSpec, type WorldSchema } from "./schema.js";

/** Lower bound below every instant. */
export const BEFORE_TIME = Number.MIN_SAFE_INTEGER - 1;
/** By default a checkpoint of an attribute is stored once this many of its patches have been folded since the last one. */
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

/** Set an own property, `__proto__` included (never the prototype). */
function setOwn(o: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

/**
 * The incremental reducer. A patch changes only the top-level attribute its path starts with, so
 * each (subject, attribute) is folded on its own: its latest value, checkpoints, E issues and the
 * live intervals of its references and text entries are re-derived from a changed instant on,
 * starting at the nearest checkpoint before it, for the attributes a write touches and no others.
 */
export class Reducer {
  constructor(
    private readonly st: Statements,
    private readonly schema: () => WorldSchema,
    private readonly checkpointEvery = CHECKPOINT_EVERY,
    private readonly onRecompute: (subjectId: string) => void = () => {},
  ) {}

  /**
   * State of a subject after every patch at or before `at` (latest when `at` is undefined), its
   * attributes in the order they first appeared; only the attributes in `tops` when given.
   */
  stateAt(subjectId: string, type: string, at?: number, tops?: ReadonlySet<string>): JsonObject {
    const state: JsonObject = {};
    let sem: OpSemantics | undefined;
    for (const r of this.st.latest.all(subjectId)) {
      if (tops && !tops.has(r.top)) continue;
      if (at === undefined || at >= r.last_instant) {
        if (r.value !== null) setOwn(state, r.top, JSON.parse(r.value));
        continue;
      }
      sem ??= semanticsFor(this.schema(), type);
      const cp = this.st.checkpointAtOrBefore.get(subjectId, r.top, at);
      const one: JsonObject = {};
      if (cp?.value != null) setOwn(one, r.top, JSON.parse(cp.value));
      for (const row of this.st.topBetween.all(subjectId, r.top, cp ? cp.instant : BEFORE_TIME, at))
        applyRow(one, row, sem);
      if (Object.hasOwn(one, r.top)) setOwn(state, r.top, one[r.top]);
    }
    return state;
  }

  /**
   * States of a subject at each of `ats` (ascending), walking each attribute's history once: an
   * instant continues from the previous one unless a checkpoint lies between them, which is a
   * nearer start. Every answer is its own object.
   */
  statesAt(subjectId: string, type: string, ats: readonly number[]): JsonObject[] {
    const out: JsonObject[] = ats.map(() => ({}));
    const sem = semanticsFor(this.schema(), type);
    for (const r of this.st.latest.all(subjectId)) {
      let one: JsonObject = {};
      // The instant `one` stands at; null until the walk starts.
      let pos: number | null = null;
      // True once `one[r.top]` has been handed out: it is copied before it changes or is handed out again.
      let shared = false;
      ats.forEach((at, k) => {
        if (at >= r.last_instant) {
          if (r.value !== null) setOwn(out[k], r.top, JSON.parse(r.value));
          return;
        }
        const cp = this.st.checkpointAtOrBefore.get(subjectId, r.top, at);
        if (pos === null || (cp && cp.instant > pos)) {
          one = {};
          if (cp?.value != null) setOwn(one, r.top, JSON.parse(cp.value));
          pos = cp ? cp.instant : BEFORE_TIME;
          shared = false;
        }
        for (const row of this.st.topBetween.all(subjectId, r.top, pos, at)) {
          if (shared) {
            one = Object.hasOwn(one, r.top) ? { [r.top]: cloneJson(one[r.top]) } : {};
            shared = false;
          }
          applyRow(one, row, sem);
        }
        pos = at;
        if (!Object.hasOwn(one, r.top)) return;
        setOwn(out[k], r.top, shared ? cloneJson(one[r.top]) : one[r.top]);
        shared = true;
      });
    }
    return out;
  }

  /** Re-derive the attributes `tops` of one subject from instant `from` on. */
  recompute(subjectId: string, type: string, from: number, tops: Iterable<string>): void {
    this.onRecompute(subjectId);
    const schema = this.schema();
    const sem = semanticsFor(schema, type);
    for (const top of new Set(tops)) this.recomputeTop(subjectId, schema.types[type], sem, top, from);
  }

  /** Derive everything of one subject from its whole history (its derived rows must be gone). */
  derive(subjectId: string, type: string): void {
    const tops = new Set(this.st.topsInOrder.all(subjectId).map((r) => r.top));
    this.recompute(subjectId, type, BEFORE_TIME, tops);
  }

  /** Recompute only the dangling-reference issues (E2) of a subject's latest state. */
  recheckDangling(subjectId: string, type: string): void {
    const typeSpec = this.schema().types[type];
    for (const r of this.st.latest.all(subjectId)) {
      if (!holdsRef(typeSpec?.attrs[r.top])) continue;
      this.st.deleteE2.run(subjectId, r.top);
      if (r.value !== null) this.checkDangling(subjectId, typeSpec, r.top, JSON.parse(r.value));
    }
  }

  private recomputeTop(
    subjectId: string,
    typeSpec: TypeSpec | undefined,
    sem: OpSemantics,
    top: string,
    from: number,
  ): void {
    const st = this.st;
    const cp = st.checkpointBefore.get(subjectId, top, from);
    st.deleteCheckpointsFrom.run(subjectId, top, from);
    st.deleteIssuesFrom.run(subjectId, top, from);
    st.deleteRefsFrom.run(subjectId, top, from);
    st.reopenRefsFrom.run(subjectId, top, from);
    st.deleteTextsFrom.run(subjectId, top, from);
    st.reopenTextsFrom.run(subjectId, top, from);
    st.deleteE2.run(subjectId, top);
    const rows = st.topAfter.all(subjectId, top, cp ? cp.instant : BEFORE_TIME);
    if (!cp && rows.length === 0) {
      // No patch addresses the attribute any more.
      st.deleteLatest.run(subjectId, top);
      return;
    }
    const open = new OpenEntries(st, subjectId, top);
    const state: JsonObject = {};
    if (cp?.value != null) setOwn(state, top, JSON.parse(cp.value));
    let lastInstant = cp ? cp.instant : BEFORE_TIME;
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
      // Appends to the attribute itself only add entries; other ops may change any entry under it.
      const appendOnly = group.every(
        (r) => pointerProblem(r.path) !== null || (r.op === "append" && segmentsOf(r.path).length === 1),
      );
      const arr = state[top];
      const length = Array.isArray(arr) ? arr.length : 0;
      const before = appendOnly ? new Map<string, Entry>() : collectEntries(state, [top], typeSpec);
      for (const row of group) {
        const f = applyRow(state, row, sem);
        if (f)
          st.insertIssue.run(
            subjectId,
            top,
            row.slice_id,
            row.id,
            instant,
            f.label,
            row.path,
            row.op,
            f.message,
          );
      }
      const after = appendOnly
        ? collectAppended(state, top, length, typeSpec)
        : collectEntries(state, [top], typeSpec);
      this.diffEntries(subjectId, top, instant, before, after, open);
      if (sinceCheckpoint >= this.checkpointEvery) {
        st.insertCheckpoint.run(subjectId, top, instant, jsonOrNull(state, top));
        sinceCheckpoint = 0;
      }
    }
    st.putLatest.run({ subject: subjectId, top, value: jsonOrNull(state, top), last: lastInstant });
    if (Object.hasOwn(state, top) && holdsRef(typeSpec?.attrs[top]))
      this.checkDangling(subjectId, typeSpec, top, state[top]);
  }

  /** Store E2 issues for the declared references in the latest value of attribute `top`. */
  private checkDangling(
    subjectId: string,
    typeSpec: TypeSpec | undefined,
    top: string,
    value: unknown,
  ): void {
    const found: Array<{ attr: string; message: string }> = [];
    const one: JsonObject = {};
    setOwn(one, top, value);
    walkDeclaredRefs(one, typeSpec, (attr, v, to) => {
      const target = refTarget(v);
      if (target === null) {
        found.push({ attr, message: `${JSON.stringify(v)} is not a ${REF_PREFIX}<id> reference` });
        return;
      }
      const s = this.st.subject.get(target);
      if (!s) found.push({ attr, message: `${REF_PREFIX}${target} names no subject` });
      else if (to !== undefined && s.type !== to)
        found.push({ attr, message: `${REF_PREFIX}${target} is a ${s.type}, not a ${to}` });
    });
    if (!found.length) return;
    const history = this.st.topLastFirst.all(subjectId, top);
    for (const f of found) {
      const segs = segmentsOf(f.attr);
      const origin = history.find((p) => !pointerProblem(p.path) && pathsOverlap(segmentsOf(p.path), segs));
      this.st.insertIssue.run(
        subjectId,
        top,
        origin?.slice_id ?? null,
        null,
        null,
        "E2",
        f.attr,
        null,
        f.message,
      );
    }
  }

  private diffEntries(
    subjectId: string,
    top: string,
    instant: number,
    before: Map<string, Entry>,
    after: Map<string, Entry>,
    open: OpenEntries,
  ): void {
    const st = this.st;
    for (const [key, e] of before) {
      if (after.has(key)) continue;
      const id = open.take(key);
      if (id === undefined) continue;
      if (e.kind === "ref") st.closeRef.run(instant, id);
      else st.closeText.run(instant, id);
    }
    for (const [key, e] of after) {
      if (before.has(key)) continue;
      const r =
        e.kind === "ref"
          ? st.insertRef.run(subjectId, top, e.attr, e.value, instant)
          : st.insertText.run(subjectId, top, e.attr, this.bodyId(e.value), instant);
      open.add(key, Number(r.lastInsertRowid));
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

/**
 * The open reference and text rows of one (subject, attribute), by entry key. Only a change that
 * ends an entry needs them, so they are read on the first such change, not before every fold.
 */
class OpenEntries {
  private loaded: Map<string, number> | null = null;
  private readonly added = new Map<string, number>();

  constructor(
    private readonly st: Statements,
    private readonly subjectId: string,
    private readonly top: string,
  ) {}

  /** The id of the open row with this key, which stops being open. */
  take(key: string): number | undefined {
    if (!this.loaded) {
      this.loaded = new Map();
      for (const r of this.st.openRefs.all(this.subjectId, this.top))
        this.loaded.set(entryKey("ref", r.attr, r.target), r.id);
      for (const t of this.st.openTexts.all(this.subjectId, this.top))
        this.loaded.set(entryKey("text", t.attr, t.body), t.id);
    }
    const id = this.added.get(key) ?? this.loaded.get(key);
    this.added.delete(key);
    this.loaded.delete(key);
    return id;
  }

  add(key: string, id: number): void {
    this.added.set(key, id);
  }
}

function jsonOrNull(state: JsonObject, top: string): string | null {
  return Object.hasOwn(state, top) ? JSON.stringify(state[top]) : null;
}
