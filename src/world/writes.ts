import { randomUUID } from "node:crypto";
import { NbError } from "../core/errors.js";
import type {
  Issue,
  Patch,
  PatchEdit,
  PatchInput,
  PatchOp,
  SliceMetaEdit,
  SliceWriteInput,
  WriteResult,
} from "./api.js";
import { checkPatch, type PatchDraft, refCheckerFrom, typeNameProblem } from "./check.js";
import type { IssueRow, PatchRow, SliceRow, Statements } from "./db.js";
import { ISSUE_CATALOG, issueKey, makeIssue } from "./issues.js";
import { cloneJson, isPlainObject, type JsonObject } from "./json.js";
import { applyPatch, resolveValue } from "./ops.js";
import { isPrefixOf, pathsOverlap, pointerProblem, segmentsOf, topAttr } from "./pointer.js";
import { type Reducer, semanticsFor } from "./reduce.js";
import { defaultsFor, resolvePath, type WorldSchema } from "./schema.js";

/** Most patches one slice may hold. */
export const MAX_PATCHES_PER_SLICE = 100;

/** What the write paths need from the world. */
export interface WriteContext {
  st: Statements;
  reducer: Reducer;
  schema(): WorldSchema;
}

interface Draft extends PatchDraft {
  id: string;
  summary?: string;
  /** Index of the input patch or edit this came from; null for defaults and initialisers. */
  origin: number | null;
  /** For edits: whether the patch came from an `add` or a `set`. */
  via?: "add" | "set";
  changed: boolean;
}

/** Turn an issue row into an Issue. */
export function issueFromRow(r: IssueRow): Issue {
  return makeIssue(r.label as Issue["label"], {
    subjectId: r.subject_id,
    attr: r.attr,
    message: r.message,
    sliceId: r.slice_id ?? undefined,
    patchId: r.patch_id ?? undefined,
    instant: r.instant ?? undefined,
    op: (r.op ?? undefined) as PatchOp | undefined,
  });
}

/** A stored patch row as a Patch. */
export function patchFromRow(r: PatchRow): Patch {
  const p: Patch = { patchId: r.id, subjectId: r.subject_id, path: r.path, op: r.op as PatchOp };
  if (r.value !== null) p.value = JSON.parse(r.value);
  if (r.summary !== null) p.summary = r.summary;
  return p;
}

const invalid = (pointer: string, message: string, details?: unknown) =>
  new NbError("invalid_input", `${pointer}: ${message}`, { fields: [{ pointer, message }], details });

/** slice.write, editPatches and delete: checked, stored and folded into the derived tables. */
export class SliceWriter {
  constructor(private readonly ctx: WriteContext) {}

  /** Store a slice (or add to the one at its instant with `merge`), each patch checked against the state there. */
  write(input: SliceWriteInput): WriteResult {
    return this.ctx.reducer.remembering(() => this.writeChecked(input));
  }

  private writeChecked(input: SliceWriteInput): WriteResult {
    const { st } = this.ctx;
    const schema = this.ctx.schema();
    const t = input.time;
    const existing = st.sliceAt.get(t);
    if (existing && !input.merge) throw this.conflict(existing);
    const created = this.registerSubjects(input.patches, "/patches");
    const drafts: Draft[] = [];
    for (const [sid, type] of created) {
      for (const [attr, value] of defaultsFor(schema, type)) {
        drafts.push({
          id: randomUUID(),
          subjectId: sid,
          path: `/${escapeSegment(attr)}`,
          op: "replace",
          value,
          origin: null,
          changed: true,
        });
      }
    }
    input.patches.forEach((p, i) => {
      drafts.push({
        id: randomUUID(),
        subjectId: p.subjectId,
        path: p.path,
        op: p.op,
        value: p.value,
        summary: p.summary,
        origin: i,
        changed: true,
      });
    });
    const final = this.simulate(schema, drafts, t);
    const already = existing ? (st.patchCount.get(existing.id)?.n ?? 0) : 0;
    if (already + final.length > MAX_PATCHES_PER_SLICE) {
      throw invalid(
        "/patches",
        `a slice holds at most ${MAX_PATCHES_PER_SLICE} patches (this one would have ${already + final.length})`,
      );
    }
    const affected = uniqueSubjects(final);
    const before = this.issueKeys(affected);
    const sliceId = existing?.id ?? randomUUID();
    if (!existing)
      st.insertSlice.run(sliceId, t, input.title ?? "", input.summary ?? "", input.kind ?? "event");
    for (const [k, d] of final.entries()) this.insertDraft(sliceId, t, already + k, d);
    for (const [sid, tops] of topsBySubject(final))
      this.ctx.reducer.recompute(sid, this.typeOf(sid), t, tops);
    this.recheckReferrers(created.keys());
    const advisories = this.advisories(sliceId, t, final, sliceId);
    return this.result(sliceId, t, affected, before, advisories);
  }

  editPatches(sliceId: string, edits: PatchEdit[], meta: SliceMetaEdit = {}): WriteResult {
    const { st } = this.ctx;
    const schema = this.ctx.schema();
    const slice = this.sliceOrThrow(sliceId);
    const oldRows = st.patchesOfSlice.all(sliceId);
    const newInstant = meta.time ?? slice.instant;
    if (newInstant !== slice.instant) {
      const other = st.sliceAt.get(newInstant);
      if (other) throw this.conflict(other);
    }
    const list: Draft[] = oldRows.map((r) => ({
      id: r.id,
      subjectId: r.subject_id,
      path: r.path,
      op: r.op as PatchOp,
      value: r.value === null ? undefined : JSON.parse(r.value),
      summary: r.summary ?? undefined,
      origin: null,
      changed: false,
    }));
    const removed: Draft[] = [];
    const adds = edits.flatMap((e, i) => ("add" in e ? [{ ...e.add, i }] : []));
    const created = this.registerSubjects(adds, "/edits", (k) => `/edits/${adds[k].i}/add`);
    edits.forEach((e, i) => {
      if ("add" in e) {
        const type = created.get(e.add.subjectId);
        if (type !== undefined && !list.some((d) => d.subjectId === e.add.subjectId)) {
          for (const [attr, value] of defaultsFor(schema, type)) {
            list.push({
              id: randomUUID(),
              subjectId: e.add.subjectId,
              path: `/${escapeSegment(attr)}`,
              op: "replace",
              value,
              origin: i,
              changed: true,
            });
          }
        }
        const a = e.add;
        list.push({
          id: randomUUID(),
          subjectId: a.subjectId,
          path: a.path,
          op: a.op,
          value: a.value,
          summary: a.summary,
          origin: i,
          via: "add",
          changed: true,
        });
        return;
      }
      const idx = list.findIndex((d) => d.id === e.patchId);
      if (idx < 0) {
        throw new NbError(
          "not_found",
          `/edits/${i}/patchId: no patch ${e.patchId} in slice ${sliceId} (unknown or already removed)`,
          {
            fields: [{ pointer: `/edits/${i}/patchId`, message: "unknown or removed patch" }],
          },
        );
      }
      if ("remove" in e) {
        removed.push(list[idx]);
        list.splice(idx, 1);
        return;
      }
      const d = list[idx];
      if (e.set.path !== undefined) d.path = e.set.path;
      if (e.set.op !== undefined) d.op = e.set.op;
      if ("value" in e.set) d.value = e.set.value;
      if (e.set.summary !== undefined) d.summary = e.set.summary;
      d.origin = i;
      d.via = "set";
      d.changed = true;
    });
    if (list.length === 0)
      throw invalid("/edits", "the edits would leave the slice empty; delete the slice instead");
    if (list.length > MAX_PATCHES_PER_SLICE)
      throw invalid("/edits", `a slice holds at most ${MAX_PATCHES_PER_SLICE} patches`);
    const checkRef = refCheckerFrom((id) => st.subject.get(id));
    for (const d of list) {
      if (!d.changed) continue;
      const problem = checkPatch(schema, this.typeOf(d.subjectId), d, checkRef);
      if (problem) throw invalid(editPointer(d, problem.field), problem.message);
    }
    const affected = uniqueSubjects([...oldRows.map((r) => ({ subjectId: r.subject_id })), ...list]);
    const before = this.issueKeys(affected);
    const moved = newInstant !== slice.instant;
    // A moved slice re-places every patch: those that applied where the slice was must apply where it goes.
    const checked = list.filter((d) => d.changed || (moved && !st.issuesOfPatch.get(d.id)));
    st.updateSlice.run(
      newInstant,
      meta.title ?? slice.title,
      meta.summary ?? slice.summary,
      meta.kind ?? slice.kind,
      sliceId,
    );
    st.deletePatchesOfSlice.run(sliceId);
    for (const [k, d] of list.entries()) this.insertDraft(sliceId, newInstant, k, d);
    const from = Math.min(slice.instant, newInstant);
    const touched = topsBySubject([
      ...oldRows.map((r) => ({ subjectId: r.subject_id, path: r.path })),
      ...list,
    ]);
    for (const [sid, tops] of touched) this.ctx.reducer.recompute(sid, this.typeOf(sid), from, tops);
    for (const d of checked) {
      const failed = st.issuesOfPatch.get(d.id);
      if (failed) {
        const label = failed.label as keyof typeof ISSUE_CATALOG;
        const problem = `${label} ${ISSUE_CATALOG[label].title}: ${failed.message}`;
        throw d.changed
          ? invalid(editPointer(d), problem, { label, code: ISSUE_CATALOG[label].code })
          : invalid("/meta/time", `at ${newInstant}, patch ${d.id} (${d.op} ${d.path}) fails: ${problem}`, {
              label,
              code: ISSUE_CATALOG[label].code,
              patchId: d.id,
            });
      }
    }
    this.recheckReferrers(created.keys());
    const advisories = [
      ...this.advisories(sliceId, newInstant, moved ? list : list.filter((d) => d.changed), sliceId),
      ...this.advisories(
        sliceId,
        slice.instant,
        moved ? [...list.filter((d) => !d.changed), ...removed] : removed,
        sliceId,
      ),
    ];
    return this.result(sliceId, newInstant, affected, before, dedupe(advisories));
  }

  delete(sliceId: string): WriteResult {
    const { st } = this.ctx;
    const slice = this.sliceOrThrow(sliceId);
    const rows = st.patchesOfSlice.all(sliceId);
    const affected = uniqueSubjects(rows.map((r) => ({ subjectId: r.subject_id })));
    const before = this.issueKeys(affected);
    st.deletePatchesOfSlice.run(sliceId);
    st.deleteSlice.run(sliceId);
    const touched = topsBySubject(rows.map((r) => ({ subjectId: r.subject_id, path: r.path })));
    for (const [sid, tops] of touched) this.ctx.reducer.recompute(sid, this.typeOf(sid), slice.instant, tops);
    return this.result(sliceId, slice.instant, affected, before, []);
  }

  /** Register unknown subjects (their first write must declare a type); returns the new ones with their type. */
  private registerSubjects(
    patches: PatchInput[],
    base: string,
    pointerOf = (i: number) => `${base}/${i}`,
  ): Map<string, string> {
    const { st } = this.ctx;
    const schema = this.ctx.schema();
    const created = new Map<string, string>();
    patches.forEach((p, i) => {
      const known = st.subject.get(p.subjectId);
      if (known) {
        if (p.type !== undefined && p.type !== known.type) {
          throw invalid(
            `${pointerOf(i)}/type`,
            `subject ${p.subjectId} is a ${known.type}; its type cannot change`,
          );
        }
        return;
      }
      if (created.has(p.subjectId)) return;
      const decl = patches.find((q) => q.subjectId === p.subjectId && q.type !== undefined);
      if (!decl?.type) {
        throw invalid(
          pointerOf(i),
          `subject ${p.subjectId} is not registered: its first write must declare its "type" (and may give a "name")`,
        );
      }
      const bad = typeNameProblem(decl.type);
      if (bad) throw invalid(`${pointerOf(patches.indexOf(decl))}/type`, bad);
      const declared = Object.keys(schema.types);
      if (declared.length && !declared.includes(decl.type)) {
        throw invalid(
          `${pointerOf(patches.indexOf(decl))}/type`,
          `unknown subject type "${decl.type}"; the schema declares: ${declared.join(", ")}`,
        );
      }
      const name = patches.find((q) => q.subjectId === p.subjectId && q.name !== undefined)?.name ?? "";
      st.insertSubject.run(p.subjectId, decl.type, name);
      created.set(p.subjectId, decl.type);
    });
    return created;
  }

  /**
   * Check each draft against its subject's state at `t` (including the slice already there when
   * merging) by applying it; inserts `replace []` before an append to a declared but missing list.
   */
  private simulate(schema: WorldSchema, drafts: Draft[], t: number): Draft[] {
    const { st, reducer } = this.ctx;
    const checkRef = refCheckerFrom((id) => st.subject.get(id));
    const states = new Map<string, JsonObject>();
    const out: Draft[] = [];
    // Only the attributes the drafts address matter: each is checked against its own history.
    const tops = topsBySubject(drafts);
    for (const d of drafts) {
      const type = this.typeOf(d.subjectId);
      const where = d.origin === null ? "/patches" : `/patches/${d.origin}`;
      const problem = checkPatch(schema, type, d, checkRef);
      if (problem) throw invalid(`${where}/${problem.field}`, problem.message);
      let state = states.get(d.subjectId);
      if (!state) {
        state = reducer.stateAt(d.subjectId, type, t, tops.get(d.subjectId));
        states.set(d.subjectId, state);
      }
      const segs = segmentsOf(d.path);
      const sem = semanticsFor(schema, type);
      if (d.op === "append") {
        const r = resolvePath(schema, type, segs);
        const parent = resolveValue(state, segs.slice(0, -1));
        if (
          r.kind === "declared" &&
          resolveValue(state, segs) === undefined &&
          (isPlainObject(parent) || segs.length === 1)
        ) {
          const init: Draft = {
            id: randomUUID(),
            subjectId: d.subjectId,
            path: d.path,
            op: "replace",
            value: [],
            origin: null,
            changed: true,
          };
          applyPatch(state, "replace", segs, [], sem);
          out.push(init);
        }
      }
      const f = applyPatch(state, d.op, segs, cloneJson(d.value), sem);
      if (f) {
        throw invalid(where, `${f.label} ${ISSUE_CATALOG[f.label].title}: ${f.message}`, {
          label: f.label,
          code: ISSUE_CATALOG[f.label].code,
        });
      }
      out.push(d);
    }
    return out;
  }

  private insertDraft(sliceId: string, instant: number, seq: number, d: Draft): void {
    this.ctx.st.insertPatch.run(
      d.id,
      sliceId,
      d.subjectId,
      instant,
      seq,
      d.path,
      d.op,
      d.value === undefined ? null : JSON.stringify(d.value),
      d.summary ?? null,
    );
  }

  /** A1/A2: absolute changes at `instant` under later patches of the same subjects. */
  private advisories(sliceId: string, instant: number, drafts: Draft[], excludeSlice: string): Issue[] {
    const out: Issue[] = [];
    const seen = new Set<string>();
    for (const d of drafts) {
      if ((d.op !== "replace" && d.op !== "remove") || pointerProblem(d.path)) continue;
      const key = `${d.subjectId}\u0000${d.path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const segs = segmentsOf(d.path);
      const covered: string[][] = [];
      for (const r of this.ctx.st.topAfter.all(d.subjectId, topAttr(d.path), instant)) {
        if (r.slice_id === excludeSlice || pointerProblem(r.path)) continue;
        const rs = segmentsOf(r.path);
        if (!pathsOverlap(rs, segs) || covered.some((c) => isPrefixOf(c, rs))) continue;
        if (r.op === "increment" || r.op === "append") {
          out.push(
            makeIssue("A1", {
              subjectId: d.subjectId,
              attr: r.path,
              sliceId: r.slice_id,
              patchId: r.id,
              instant: r.instant,
              op: r.op as PatchOp,
              message: `the ${d.op} of ${d.path} in slice ${sliceId} changes the base of this later ${r.op}`,
            }),
          );
          covered.push(rs);
          continue;
        }
        out.push(
          makeIssue("A2", {
            subjectId: d.subjectId,
            attr: d.path,
            sliceId,
            patchId: d.id,
            instant,
            op: d.op,
            message: `a later ${r.op} of ${r.path} (slice ${r.slice_id}, instant ${r.instant}) overwrites this ${d.op}`,
          }),
        );
        if (isPrefixOf(rs, segs)) break;
        covered.push(rs);
      }
    }
    return out;
  }

  private result(
    sliceId: string,
    instant: number,
    affected: string[],
    before: Set<string>,
    advisories: Issue[],
  ): WriteResult {
    const after = affected.flatMap((sid) => this.ctx.st.issuesOfSubject.all(sid).map(issueFromRow));
    const issues = [...after.filter((i) => !before.has(issueKey(i))), ...advisories];
    const existingIssues = after.filter((i) => before.has(issueKey(i)));
    const patchIds = this.ctx.st.patchesOfSlice.all(sliceId).map((r) => r.id);
    return { sliceId, instant, patchIds, issues, existingIssues };
  }

  private issueKeys(subjects: string[]): Set<string> {
    return new Set(
      subjects.flatMap((sid) => this.ctx.st.issuesOfSubject.all(sid).map((r) => issueKey(issueFromRow(r)))),
    );
  }

  private recheckReferrers(created: Iterable<string>): void {
    for (const id of created) {
      for (const r of this.ctx.st.referrersLatest.all(id))
        this.ctx.reducer.recheckDangling(r.subject_id, this.typeOf(r.subject_id));
    }
  }

  private typeOf(subjectId: string): string {
    const s = this.ctx.st.subject.get(subjectId);
    if (!s) throw new NbError("not_found", `unknown subject ${subjectId}`);
    return s.type;
  }

  private sliceOrThrow(sliceId: string): SliceRow {
    const s = this.ctx.st.sliceById.get(sliceId);
    if (!s) throw new NbError("not_found", `no slice with id ${sliceId}`);
    return s;
  }

  private conflict(existing: SliceRow): NbError {
    return new NbError(
      "conflict",
      `instant ${existing.instant} already holds slice ${existing.id}${existing.title ? ` ("${existing.title}")` : ""}: one slice per instant. Write with merge: true to add these patches to it, or use editPatches.`,
      { details: { existingSliceId: existing.id, instant: existing.instant, title: existing.title } },
    );
  }
}

function uniqueSubjects(items: Array<{ subjectId: string }>): string[] {
  return [...new Set(items.map((i) => i.subjectId))];
}

/** The top-level attributes each subject's patches address. */
function topsBySubject(patches: Array<{ subjectId: string; path: string }>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const p of patches) {
    const tops = out.get(p.subjectId) ?? new Set<string>();
    tops.add(topAttr(p.path));
    out.set(p.subjectId, tops);
  }
  return out;
}

function escapeSegment(attr: string): string {
  return attr.replace(/~/g, "~0").replace(/\//g, "~1");
}

function editPointer(d: Draft, field?: string): string {
  const base = d.origin === null ? "/edits" : `/edits/${d.origin}`;
  return field && d.via ? `${base}/${d.via}/${field}` : base;
}

function dedupe(issues: Issue[]): Issue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${issueKey(i)}\u0000${i.patchId ?? ""}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
