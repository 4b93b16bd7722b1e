import type { PatchOp } from "./api.js";
import type { IntervalRow, LatestRow, PatchRow, Statements } from "./db.js";
import {
  collectAppended,
  collectEntries,
  type Entry,
  entryKey,
  holdsRef,
  walkDeclaredRefs,
} from "./entries.js";
import { cloneJson, isPlainObject, type JsonObject, REF_PREFIX, refTarget } from "./json.js";
import { applyPatch, type OpFailure, type OpSemantics } from "./ops.js";
import { pathsOverlap, pointerProblem, segmentsOf } from "./pointer.js";
import { isTextContainer, resolvePath, type TypeSpec, type WorldSchema } from "./schema.js";

/** Lower bound below every instant. */
export const BEFORE_TIME = Number.MIN_SAFE_INTEGER - 1;
/** By default an attribute's checkpoint is stored once this many of its patches were folded since the last one (more for a large value). */
export const CHECKPOINT_EVERY = 32;

/**
 * How often values are stored while folding, as a number of patches of one attribute given the
 * number of items its value holds. Checkpoints come rarer as a value grows (a change of the past
 * rewrites every later one), snapshots of the latest value come often (a read folds what came after).
 */
export interface FoldPolicy {
  checkpointEvery(items: number): number;
  snapshotEvery(items: number): number;
}

/** The default policy, or fixed intervals (tests use small ones to exercise every path). */
export function foldPolicy(fixed: { checkpointEvery?: number; snapshotEvery?: number } = {}): FoldPolicy {
  return {
    checkpointEvery: (items) => fixed.checkpointEvery ?? Math.max(CHECKPOINT_EVERY, Math.floor(items / 4)),
    snapshotEvery: (items) => fixed.snapshotEvery ?? Math.max(1, Math.floor(items / 64)),
  };
}

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

/** Paths seen in stored patches, parsed once: the segments of a valid path, null for an invalid one. */
const parsedPaths = new Map<string, readonly string[] | null>();
const PARSED_PATHS_MAX = 10_000;

/** The segments of a stored patch path, or null when it is not a valid JSON Pointer. */
function pathSegments(path: string): readonly string[] | null {
  let segs = parsedPaths.get(path);
  if (segs === undefined) {
    segs = pointerProblem(path) ? null : segmentsOf(path);
    if (parsedPaths.size >= PARSED_PATHS_MAX) parsedPaths.clear();
    parsedPaths.set(path, segs);
  }
  return segs;
}

/** Apply one stored patch to a state. */
export function applyRow(
  state: JsonObject,
  row: Pick<PatchRow, "path" | "op" | "value">,
  sem: OpSemantics,
): OpFailure | null {
  const segs = pathSegments(row.path);
  if (!segs) return { label: "E3", message: `not a valid JSON Pointer: ${row.path}` };
  const value = row.value === null ? undefined : JSON.parse(row.value);
  return applyPatch(state, row.op as PatchOp, segs, value, sem);
}

/** Set an own property, `__proto__` included (never the prototype). */
function setOwn(o: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

/** Items a value holds (array length, object keys; 0 for a scalar). */
function itemsOf(v: unknown): number {
  if (Array.isArray(v)) return v.length;
  return isPlainObject(v) ? Object.keys(v).length : 0;
}

/** A stored value of one attribute to fold on from: after every patch at or before `instant`. */
interface Start {
  instant: number;
  value: string | null;
  /** Patches folded since the last checkpoint, at `instant`. */
  sinceCheckpoint: number;
  snapshot: boolean;
}

/** A live interval found while re-deriving (to be matched against the stored ones). */
interface Interval {
  kind: Entry["kind"];
  attr: string;
  value: string;
  from: number;
  to: number | null;
}

/**
 * The incremental reducer. A patch changes only the top-level attribute its path starts with, so
 * each (subject, attribute) is folded on its own: its snapshot, checkpoints, E issues and the live
 * intervals of its references and text entries are re-derived from a changed instant on, starting
 * at the nearest stored value before it, for the attributes a write touches and no others.
 */
export class Reducer {
  /** Snapshot values read during one write, so re-deriving after its checks does not read them again. */
  private snapshots: Map<string, { instant: number; value: string | null }> | null = null;
  /** Checkpoint values read during one write's checks, by subject, attribute and instant. */
  private checkpoints: Map<string, string | null> | null = null;

  constructor(
    private readonly st: Statements,
    private readonly schema: () => WorldSchema,
    private readonly policy: FoldPolicy = foldPolicy(),
    private readonly onRecompute: (subjectId: string) => void = () => {},
  ) {}

  /** Run one write (its checks, then its re-derivation), remembering the snapshots it reads. */
  remembering<T>(fn: () => T): T {
    this.snapshots = new Map();
    this.checkpoints = new Map();
    try {
      return fn();
    } finally {
      this.snapshots = null;
      this.checkpoints = null;
    }
  }

  /** A stored checkpoint's value (remembered during a write). */
  private checkpointValue(subjectId: string, top: string, instant: number): string | null {
    const key = `${subjectId}\u0000${top}\u0000${instant}`;
    const seen = this.checkpoints?.get(key);
    if (seen !== undefined) return seen;
    const value = this.st.checkpointValue.get(subjectId, top, instant)?.value ?? null;
    this.checkpoints?.set(key, value);
    return value;
  }

  /**
   * State of a subject after every patch at or before `at` (latest when `at` is undefined), its
   * attributes in the order they first appeared; only the attributes in `tops` when given.
   */
  stateAt(subjectId: string, type: string, at?: number, tops?: ReadonlySet<string>): JsonObject {
    const state: JsonObject = {};
    let sem: OpSemantics | undefined;
    // Asked for a few attributes, the others' (maybe large) snapshots are not even read.
    const rows = tops
      ? [...tops].flatMap((top) => this.st.latestOf.all(at ?? Number.MAX_SAFE_INTEGER, subjectId, top))
      : this.st.latest.all(at ?? Number.MAX_SAFE_INTEGER, subjectId);
    for (const r of rows) {
      if (r.snap_instant !== null && (at === undefined || r.snap_instant <= at))
        this.snapshots?.set(`${subjectId}\u0000${r.top}`, { instant: r.snap_instant, value: r.value });
      const upto = at === undefined ? r.last_instant : Math.min(at, r.last_instant);
      if (r.snap_instant === upto) {
        if (r.value !== null) setOwn(state, r.top, JSON.parse(r.value));
        continue;
      }
      sem ??= semanticsFor(this.schema(), type);
      const start = this.startAt(subjectId, r, upto);
      const one = start.load();
      for (const row of this.st.foldBetween.all(subjectId, r.top, start.from, upto)) applyRow(one, row, sem);
      if (Object.hasOwn(one, r.top)) setOwn(state, r.top, one[r.top]);
    }
    return state;
  }

  /**
   * States of a subject at each of `ats` (ascending), walking each attribute's history once: an
   * instant continues from the previous one unless a stored value lies between them, which is a
   * nearer start. Every answer is its own object.
   */
  statesAt(subjectId: string, type: string, ats: readonly number[]): JsonObject[] {
    const out: JsonObject[] = ats.map(() => ({}));
    const sem = semanticsFor(this.schema(), type);
    const last = ats.reduce((m, at) => Math.max(m, at), BEFORE_TIME);
    for (const r of this.st.latest.all(last, subjectId)) {
      let one: JsonObject = {};
      // The instant `one` stands at; null until the walk starts.
      let pos: number | null = null;
      // True once `one[r.top]` has been handed out: it is copied before it changes or is handed out again.
      let shared = false;
      for (const [k, at] of ats.entries()) {
        const upto = Math.min(at, r.last_instant);
        if (upto === r.snap_instant) {
          if (r.value !== null) setOwn(out[k], r.top, JSON.parse(r.value));
          continue;
        }
        const start = this.startAt(subjectId, r, upto);
        if (pos === null || start.from > pos) {
          one = start.load();
          pos = start.from;
          shared = false;
        }
        for (const row of this.st.foldBetween.all(subjectId, r.top, pos, upto)) {
          if (shared) {
            one = Object.hasOwn(one, r.top) ? { [r.top]: cloneJson(one[r.top]) } : {};
            shared = false;
          }
          applyRow(one, row, sem);
        }
        pos = upto;
        if (!Object.hasOwn(one, r.top)) continue;
        setOwn(out[k], r.top, shared ? cloneJson(one[r.top]) : one[r.top]);
        shared = true;
      }
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
    const tops = new Set(
      this.st.topsOf
        .all(subjectId)
        .map((r) => r.top)
        .filter((top) => holdsRef(typeSpec?.attrs[top])),
    );
    const state = this.stateAt(subjectId, type, undefined, tops);
    for (const top of tops) {
      this.st.deleteE2.run(subjectId, top);
      if (Object.hasOwn(state, top)) this.checkDangling(subjectId, typeSpec, top, state[top]);
    }
  }

  /**
   * The nearest stored value of an attribute at or before `at`: its instant, and a state holding
   * only it (read and parsed on demand, as a walk may not need it).
   */
  private startAt(subjectId: string, r: LatestRow, at: number): { from: number; load(): JsonObject } {
    const state: JsonObject = {};
    if (r.snap_instant !== null && r.snap_instant <= at) {
      return {
        from: r.snap_instant,
        load: () => {
          if (r.value !== null) setOwn(state, r.top, JSON.parse(r.value));
          return state;
        },
      };
    }
    const cp = this.st.checkpointAtOrBefore.get(subjectId, r.top, at);
    return {
      from: cp ? cp.instant : BEFORE_TIME,
      load: () => {
        const value = cp ? this.checkpointValue(subjectId, r.top, cp.instant) : null;
        if (value != null) setOwn(state, r.top, JSON.parse(value));
        return state;
      },
    };
  }

  private recomputeTop(
    subjectId: string,
    typeSpec: TypeSpec | undefined,
    sem: OpSemantics,
    top: string,
    from: number,
  ): void {
    const st = this.st;
    const snap = st.snapshotBefore.get(subjectId, top, from);
    const cp = st.checkpointBefore.get(subjectId, top, from);
    let start: Start | null = null;
    if (snap && (!cp || snap.instant > cp.instant)) {
      const seen = this.snapshots?.get(`${subjectId}\u0000${top}`);
      const value =
        seen?.instant === snap.instant ? seen.value : (st.snapshotValue.get(subjectId, top)?.value ?? null);
      start = { instant: snap.instant, value, sinceCheckpoint: snap.since_checkpoint, snapshot: true };
    } else if (cp) {
      const value = this.checkpointValue(subjectId, top, cp.instant);
      start = { instant: cp.instant, value, sinceCheckpoint: 0, snapshot: false };
    }
    // Checkpoints from `from` on are about to be replaced: none remembered may be reused.
    if (this.checkpoints)
      for (const key of this.checkpoints.keys())
        if (key.startsWith(`${subjectId}\u0000${top}\u0000`)) this.checkpoints.delete(key);
    // Deriving from the start (a rebuild) finds nothing stored to clear or to reopen.
    const derived = from > BEFORE_TIME;
    if (derived) {
      st.deleteCheckpointsFrom.run(subjectId, top, from);
      st.deleteIssuesFrom.run(subjectId, top, from);
      st.deleteE2.run(subjectId, top);
      st.reopenRefsFrom.run(subjectId, top, from, from);
      st.reopenTextsFrom.run(subjectId, top, from, from);
    }
    const rows = st.foldAfter.all(subjectId, top, start ? start.instant : BEFORE_TIME);
    const open = new OpenBefore(st, subjectId, top, from);
    const fresh: Interval[] = [];
    const freshOpen = new Map<string, Interval>();
    const state: JsonObject = {};
    if (start?.value != null) setOwn(state, top, JSON.parse(start.value));
    let lastInstant = start ? start.instant : BEFORE_TIME;
    let sinceCheckpoint = start ? start.sinceCheckpoint : 0;
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
      } else {
        // Appends to the attribute itself only add entries; other ops may change any entry under it.
        const appendOnly = group.every((r) =>
          r.op === "append" ? (pathSegments(r.path)?.length ?? 1) === 1 : pathSegments(r.path) === null,
        );
        const length = itemsOf(state[top]);
        const before = appendOnly ? new Map<string, Entry>() : collectEntries(state, [top], typeSpec);
        for (const row of group) {
          const f = applyRow(state, row, sem);
          // The fold reads only the index; the ids of a failing patch come from its row.
          const ids = f ? st.patchIdsAt.get(row.rowid) : undefined;
          if (f)
            st.insertIssue.run(
              subjectId,
              top,
              ids?.slice_id,
              ids?.id,
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
        for (const [key, e] of before) {
          if (after.has(key)) continue;
          const mine = freshOpen.get(key);
          if (mine) {
            mine.to = instant;
            freshOpen.delete(key);
          } else if (derived) open.close(key, e.kind, instant);
        }
        for (const [key, e] of after) {
          if (before.has(key)) continue;
          const interval: Interval = { kind: e.kind, attr: e.attr, value: e.value, from: instant, to: null };
          fresh.push(interval);
          freshOpen.set(key, interval);
        }
      }
      if (sinceCheckpoint >= this.policy.checkpointEvery(itemsOf(state[top])) && instant >= from) {
        st.insertCheckpoint.run(subjectId, top, instant, jsonOrNull(state, top));
        sinceCheckpoint = 0;
      }
    }
    this.storeIntervals(subjectId, top, from, fresh);
    if (!start && rows.length === 0) {
      // No patch addresses the attribute any more.
      st.deleteLatest.run(subjectId, top);
      st.deleteSnapshot.run(subjectId, top);
      this.snapshots?.delete(`${subjectId}\u0000${top}`);
      return;
    }
    st.putLatest.run({ subject: subjectId, top, last: lastInstant });
    // The snapshot is kept while only a few patches came after it (a large value is not rewritten for each).
    const stale = !start?.snapshot || rows.length >= this.policy.snapshotEvery(itemsOf(state[top]));
    if (stale) {
      const value = jsonOrNull(state, top);
      st.putSnapshot.run(subjectId, top, lastInstant, value, sinceCheckpoint);
      this.snapshots?.set(`${subjectId}\u0000${top}`, { instant: lastInstant, value });
    }
    if (Object.hasOwn(state, top) && holdsRef(typeSpec?.attrs[top]))
      this.checkDangling(subjectId, typeSpec, top, state[top]);
  }

  /**
   * Replace the stored intervals that start at or after `from` by `fresh`: a row that only moved
   * (a list item shifted by a change before it) keeps its row and gets its new pointer.
   */
  private storeIntervals(subjectId: string, top: string, from: number, fresh: Interval[]): void {
    const st = this.st;
    // Grouped by kind and interval (short keys); a match also has the same value.
    const key = (kind: string, from: number, to: number | null) => `${kind}:${from}:${to ?? ""}`;
    const stored = new Map<string, Array<IntervalRow & { kind: Entry["kind"] }>>();
    const add = (kind: Entry["kind"], rows: IntervalRow[]) => {
      for (const r of rows) {
        const k = key(kind, r.from_instant, r.to_instant);
        const list = stored.get(k);
        if (list) list.push({ ...r, kind });
        else stored.set(k, [{ ...r, kind }]);
      }
    };
    if (from > BEFORE_TIME) {
      add("ref", st.refsFrom.all(subjectId, top, from));
      add("text", st.textsFrom.all(subjectId, top, from));
    }
    const refs: Interval[] = [];
    const texts: Interval[] = [];
    const moved = { ref: [] as Array<[number, string]>, text: [] as Array<[number, string]> };
    for (const f of fresh) {
      const group = stored.get(key(f.kind, f.from, f.to));
      let at = group ? group.findIndex((r) => r.value === f.value && r.attr === f.attr) : -1;
      if (group && at < 0) at = group.findIndex((r) => r.value === f.value);
      if (group && at >= 0) {
        const row = group.splice(at, 1)[0];
        if (row.attr !== f.attr) moved[f.kind].push([row.id, f.attr]);
      } else (f.kind === "ref" ? refs : texts).push(f);
    }
    const gone = { ref: [] as number[], text: [] as number[] };
    for (const rows of stored.values()) for (const r of rows) gone[r.kind].push(r.id);
    if (moved.ref.length) st.moveRefs.run(JSON.stringify(moved.ref));
    if (moved.text.length) st.moveTexts.run(JSON.stringify(moved.text));
    if (gone.ref.length) st.deleteRefs.run(JSON.stringify(gone.ref));
    if (gone.text.length) st.deleteTexts.run(JSON.stringify(gone.text));
    const json = (list: Interval[]) => JSON.stringify(list.map((f) => [f.attr, f.value, f.from, f.to]));
    if (refs.length) st.insertRefs.run(subjectId, top, json(refs));
    if (texts.length) {
      const created = st.insertMissingBodies.all(JSON.stringify(texts.map((f) => f.value)));
      if (created.length) {
        const rows = JSON.stringify(created.map((b) => [b.id, b.body]));
        st.indexBodies.run(rows);
        st.indexBodyWords.run(rows);
      }
      st.insertTexts.run(subjectId, top, json(texts));
    }
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
}

/**
 * The reference and text rows of one (subject, attribute) that started before `from` and are live
 * at it. Only a change that ends one needs them, so they are read on the first such change.
 */
class OpenBefore {
  private rows: Map<string, number> | null = null;

  constructor(
    private readonly st: Statements,
    private readonly subjectId: string,
    private readonly top: string,
    private readonly from: number,
  ) {}

  /** End the live row with this key at `instant` (none: nothing to end). */
  close(key: string, kind: Entry["kind"], instant: number): void {
    if (!this.rows) {
      this.rows = new Map();
      for (const r of this.st.openRefsBefore.all(this.subjectId, this.top, this.from))
        this.rows.set(entryKey("ref", r.attr, r.target), r.id);
      for (const t of this.st.openTextsBefore.all(this.subjectId, this.top, this.from))
        this.rows.set(entryKey("text", t.attr, t.body), t.id);
    }
    const id = this.rows.get(key);
    if (id === undefined) return;
    this.rows.delete(key);
    (kind === "ref" ? this.st.closeRef : this.st.closeText).run(instant, id);
  }
}

function jsonOrNull(state: JsonObject, top: string): string | null {
  return Object.hasOwn(state, top) ? JSON.stringify(state[top]) : null;
}
