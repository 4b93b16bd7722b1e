import { statSync } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { z } from "zod";
import { NbError } from "../core/errors.js";
import { parseOrThrow } from "../core/validate.js";
import { blockingEmbedder } from "../models/embeddings/blocking.js";
import type { Project } from "../workspace/project.js";
import {
  type FindRefsOptions,
  findRefsOptionsSchema,
  type GetOptions,
  getOptionsSchema,
  type HistoryEntry,
  type HistoryOptions,
  historyOptionsSchema,
  type Issue,
  MAX_QUERY_CHARS,
  type PatchEdit,
  patchEditSchema,
  type RefInfo,
  type SchemaDescription,
  type SearchHit,
  type SearchOptions,
  type SliceDetail,
  type SliceInfo,
  type SliceListOptions,
  type SliceMetaEdit,
  type SliceWriteInput,
  type StateQuery,
  type SubjectInfo,
  searchOptionsSchema,
  sliceListSchema,
  sliceMetaSchema,
  sliceWriteSchema,
  stateQuerySchema,
  type TransactionResult,
  type WorldApi,
  type WriteRecord,
  type WriteResult,
} from "./api.js";
import { DERIVED_TABLES, openWorldDb, prepareStatements, type SliceRow, type Statements } from "./db.js";
import { isPlainObject, type JsonObject, refTarget } from "./json.js";
import { pathsOverlap, pointerProblem, segmentsOf, topAttr } from "./pointer.js";
import { foldPolicy, Reducer } from "./reduce.js";
import { describeSchema, loadSchemaFile, type WorldSchema } from "./schema.js";
import { type EmbedFn, TextSearch } from "./search.js";
import { issueFromRow, patchFromRow, SliceWriter } from "./writes.js";

export interface WorldOptions {
  /** world.sqlite path (":memory:" for a throwaway world). */
  dbPath: string;
  /** world-engine/schema.yaml path; a missing file means a permissive schema. */
  schemaPath: string;
  /** The real folder schema.yaml must really be in (a project's root; default: the folder holding it). */
  schemaRoot?: string;
  /** The embedder search re-ranks with (default none: keyword-only search). */
  embed?: EmbedFn;
  /** Patches of an attribute folded between two of its checkpoints (default 32, or a quarter of its items when more). */
  checkpointEvery?: number;
  /** Patches of an attribute that may follow its stored snapshot (default 1, or 1/64 of its items when more). */
  snapshotEvery?: number;
}

const DRY_RUN = Symbol("dry-run");
const LATEST_CACHE_MAX = 20_000;

function deepFreeze<T>(v: T): T {
  if (v && typeof v === "object") {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/** The World Engine of one project: one long-lived connection, all derived data kept incrementally. */
export class World implements WorldApi {
  readonly db: Database.Database;
  private readonly st: Statements;
  private readonly reducer: Reducer;
  private readonly writer: SliceWriter;
  private readonly searcher: TextSearch;
  private current: WorldSchema | null = null;
  private schemaStamp = "";
  /** True until the derived data is known to match `current` outside any transaction that could roll it back. */
  private schemaUnsettled = false;
  private readonly recorders: WriteRecord[][] = [];
  /** Latest states, frozen, filled outside transactions; dropped when a subject is recomputed or another connection commits. */
  private readonly latest = new Map<string, JsonObject>();
  private readonly dataVersion: Database.Statement<[], number>;
  private seenVersion = -1;

  constructor(private readonly opts: WorldOptions) {
    this.db = openWorldDb(opts.dbPath);
    this.st = prepareStatements(this.db);
    const schema = () => this.current as WorldSchema;
    const policy = foldPolicy({ checkpointEvery: opts.checkpointEvery, snapshotEvery: opts.snapshotEvery });
    this.reducer = new Reducer(this.st, schema, policy, (id) => this.latest.delete(id));
    this.dataVersion = this.db.prepare<[], number>("PRAGMA data_version").pluck();
    this.writer = new SliceWriter({ st: this.st, reducer: this.reducer, schema });
    this.searcher = new TextSearch(this.db, schema, opts.embed ?? (() => null));
  }

  /** The schema in force, reloaded when the file changed; derived data is rebuilt when it means something new. */
  loadSchema(): WorldSchema {
    const stamp = fileStamp(this.opts.schemaPath);
    if (!this.current || stamp !== this.schemaStamp) {
      this.current = loadSchemaFile(this.opts.schemaPath, this.opts.schemaRoot);
      this.schemaStamp = stamp;
      this.schemaUnsettled = true;
    }
    if (this.schemaUnsettled) {
      if (this.st.getMeta.get("schema")?.value !== this.current.fingerprint) this.rebuild();
      // A rebuild inside an enclosing transaction (a script, a dry run) is undone if that rolls back.
      this.schemaUnsettled = this.db.inTransaction;
    }
    return this.current;
  }

  /** Recompute every derived table from the patch log (after a schema change). */
  rebuild(): void {
    this.db.transaction(() => {
      for (const table of DERIVED_TABLES) this.db.exec(`DELETE FROM ${table}`);
      for (const s of this.st.subjectsAll.all()) this.reducer.derive(s.id, s.type);
      this.st.setMeta.run("schema", (this.current as WorldSchema).fingerprint);
    })();
  }

  now(): number {
    return this.st.maxInstant.get()?.m ?? 0;
  }

  readonly subject = {
    get: (id: string, opts?: GetOptions): Record<string, unknown> | null => this.getOne(id, opts),
    gets: (ids: string[], opts?: GetOptions): Array<Record<string, unknown> | null> => {
      parseOrThrow(z.array(z.string()), ids, "subject ids");
      return ids.map((id) => this.getOne(id, opts));
    },
    statesAt: (pairs: StateQuery[]): Array<Record<string, unknown> | null> => {
      const qs = parseOrThrow(z.array(stateQuerySchema), pairs, "state queries");
      this.loadSchema();
      const bySubject = new Map<string, number[]>();
      qs.forEach((q, i) => {
        const idx = bySubject.get(q.id);
        if (idx) idx.push(i);
        else bySubject.set(q.id, [i]);
      });
      const out: Array<JsonObject | null> = qs.map(() => null);
      for (const [id, idx] of bySubject) {
        const s = this.st.subject.get(id);
        if (!s) continue;
        // In time order, so the reducer walks the subject's history forward once.
        idx.sort((a, b) => qs[a].at - qs[b].at);
        const states = this.reducer.statesAt(
          id,
          s.type,
          idx.map((i) => qs[i].at),
        );
        idx.forEach((i, k) => {
          out[i] = states[k];
        });
      }
      return out;
    },
    list: (type?: string): SubjectInfo[] => {
      const schema = this.loadSchema();
      if (type === undefined) return this.st.subjectsAll.all();
      const declared = Object.keys(schema.types);
      if (declared.length && !declared.includes(type)) {
        throw new NbError(
          "invalid_input",
          `unknown subject type "${type}"; the schema declares: ${declared.join(", ")}`,
        );
      }
      return this.st.subjectsByType.all(type);
    },
    info: (id: string): SubjectInfo | null => this.st.subject.get(id) ?? null,
    infos: (ids: string[]): Array<SubjectInfo | null> => {
      parseOrThrow(z.array(z.string()), ids, "subject ids");
      return ids.map((id) => this.st.subject.get(id) ?? null);
    },
    findRefs: (id: string, opts?: FindRefsOptions): RefInfo[] => {
      const o = parseOrThrow(findRefsOptionsSchema, opts ?? {}, "findRefs options");
      this.loadSchema();
      const rows = o.at === undefined ? this.st.refsToLatest.all(id) : this.st.refsToAt.all(id, o.at, o.at);
      return rows
        .filter((r) => o.sourceType === undefined || this.st.subject.get(r.subject_id)?.type === o.sourceType)
        .map((r) => ({ subjectId: r.subject_id, attr: r.attr }));
    },
    history: (id: string, opts?: HistoryOptions): HistoryEntry[] => {
      const o = parseOrThrow(historyOptionsSchema, opts ?? {}, "history options");
      if (!this.st.subject.get(id)) throw new NbError("not_found", `unknown subject ${id}`);
      if (o.path !== undefined) {
        const p = pointerProblem(o.path);
        if (p)
          throw new NbError("invalid_input", `/path: ${p}`, { fields: [{ pointer: "/path", message: p }] });
      }
      const segs = o.path === undefined ? null : segmentsOf(o.path);
      return this.st.patchesOfSubject
        .all(id)
        .filter((r) => !segs || (!pointerProblem(r.path) && pathsOverlap(segmentsOf(r.path), segs)))
        .map((r) => {
          const p = patchFromRow(r);
          const e: HistoryEntry = {
            sliceId: r.slice_id,
            instant: r.instant,
            sliceTitle: r.title,
            patchId: r.id,
            seq: r.seq,
            path: r.path,
            op: p.op,
          };
          if (p.value !== undefined) e.value = p.value;
          if (p.summary !== undefined) e.summary = p.summary;
          return e;
        });
    },
  };

  readonly slice = {
    list: (opts?: SliceListOptions): SliceInfo[] =>
      this.listSlices(parseOrThrow(sliceListSchema, opts ?? {}, "slice.list options")),
    get: (sliceId: string): SliceDetail => {
      this.loadSchema();
      const s = this.sliceRow(sliceId);
      const info = this.sliceInfo(s, true);
      return {
        ...info,
        patches: info.patches ?? [],
        issues: info.issues ?? [],
        previousInstant: this.st.prevInstant.get(s.instant)?.m ?? null,
        nextInstant: this.st.nextInstant.get(s.instant)?.m ?? null,
      };
    },
    write: (input: SliceWriteInput): WriteResult => {
      const i = parseOrThrow(sliceWriteSchema, input, "slice.write input");
      return this.mutate("write", () => this.writer.write(i));
    },
    editPatches: (sliceId: string, edits: PatchEdit[], meta?: SliceMetaEdit): WriteResult => {
      parseOrThrow(z.string().min(1), sliceId, "sliceId");
      const e = parseOrThrow(z.array(patchEditSchema), edits, "edits");
      const m = parseOrThrow(sliceMetaSchema, meta ?? {}, "slice meta");
      return this.mutate("edit", () => this.writer.editPatches(sliceId, e, m));
    },
    delete: (sliceId: string): WriteResult => {
      parseOrThrow(z.string().min(1), sliceId, "sliceId");
      const before = this.st.sliceById.get(sliceId);
      const patches = before ? this.st.patchesOfSlice.all(sliceId).map(patchFromRow) : [];
      return this.mutate("delete", () => this.writer.delete(sliceId), {
        title: before?.title ?? "",
        patches,
      });
    },
  };

  readonly search = {
    text: (query: string, opts?: SearchOptions): SearchHit[] => {
      parseOrThrow(z.string().max(MAX_QUERY_CHARS), query, "query");
      const o = parseOrThrow(searchOptionsSchema, opts ?? {}, "search options");
      this.loadSchema();
      return this.searcher.search(query, o);
    },
  };

  readonly schema = {
    describe: (): SchemaDescription => describeSchema(this.loadSchema()),
  };

  readonly issues = {
    list: (filter: { subjectId?: string; sliceId?: string } = {}): Issue[] => {
      this.loadSchema();
      if (filter.sliceId !== undefined) {
        return this.st.issuesOfSlice
          .all(filter.sliceId)
          .filter((r) => filter.subjectId === undefined || r.subject_id === filter.subjectId)
          .map(issueFromRow);
      }
      if (filter.subjectId !== undefined)
        return this.st.issuesOfSubject.all(filter.subjectId).map(issueFromRow);
      return this.st.issuesAll.all().map(issueFromRow);
    },
  };

  transaction<T>(fn: () => T, opts: { dryRun?: boolean } = {}): TransactionResult<T> {
    // A schema change is folded into the derived data first, so a rollback cannot undo that work.
    if (!this.db.inTransaction) this.loadSchema();
    const writes: WriteRecord[] = [];
    const outer = this.recorders.map((r) => r.length);
    this.recorders.push(writes);
    let value!: T;
    try {
      this.db.transaction(() => {
        value = fn();
        if (opts.dryRun) throw DRY_RUN;
      })();
    } catch (e) {
      this.recorders.slice(0, outer.length).forEach((r, i) => {
        r.length = outer[i];
      });
      if (e !== DRY_RUN) throw e;
    } finally {
      this.recorders.pop();
      this.searcher.settle();
    }
    return { value, writes };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /**
   * Re-derive after log rows were put back from outside the World's own writes (a history revert,
   * inside its transaction): each subject's touched attributes from the earliest instant touched,
   * a subject that is gone loses its derived rows, and subjects referring to one that came or went
   * have their dangling references re-checked. Returns the issues the touched subjects have now.
   */
  rederive(
    patches: Array<{ subjectId: string; path: string; instant: number }>,
    subjects: string[],
  ): Issue[] {
    this.loadSchema();
    const from = new Map<string, { instant: number; tops: Set<string> }>();
    for (const p of patches) {
      const f = from.get(p.subjectId) ?? { instant: p.instant, tops: new Set<string>() };
      f.instant = Math.min(f.instant, p.instant);
      f.tops.add(topAttr(p.path));
      from.set(p.subjectId, f);
    }
    for (const [sid, f] of from) {
      const s = this.st.subject.get(sid);
      this.latest.delete(sid);
      if (s) this.reducer.recompute(sid, s.type, f.instant, f.tops);
    }
    const all = [...new Set([...from.keys(), ...subjects])];
    for (const sid of all) {
      if (this.st.subject.get(sid)) continue;
      for (const table of DERIVED_TABLES)
        this.db.prepare(`DELETE FROM ${table} WHERE subject_id = ?`).run(sid);
    }
    for (const sid of subjects) {
      for (const r of this.st.referrersLatest.all(sid)) {
        const referrer = this.st.subject.get(r.subject_id);
        if (referrer) this.reducer.recheckDangling(r.subject_id, referrer.type);
      }
    }
    return all.flatMap((sid) => this.st.issuesOfSubject.all(sid).map(issueFromRow));
  }

  /** Run one write as its own savepoint and record it for enclosing transactions. */
  private mutate(
    action: WriteRecord["action"],
    fn: () => WriteResult,
    deleted?: Pick<WriteRecord, "title" | "patches">,
  ): WriteResult {
    this.loadSchema();
    const result = this.db.transaction(fn)();
    if (this.recorders.length) {
      const slice = this.st.sliceById.get(result.sliceId);
      const record: WriteRecord = {
        action,
        sliceId: result.sliceId,
        instant: result.instant,
        title: deleted?.title ?? slice?.title ?? "",
        patches: deleted?.patches ?? this.st.patchesOfSlice.all(result.sliceId).map(patchFromRow),
        issues: result.issues,
      };
      for (const r of this.recorders) r.push(record);
    }
    return result;
  }

  private getOne(id: string, opts?: GetOptions): Record<string, unknown> | null {
    if (typeof id !== "string") parseOrThrow(z.string(), id, "subject id");
    const o = opts === undefined ? {} : parseOrThrow(getOptionsSchema, opts, "get options");
    this.loadSchema();
    if (o.at === undefined && !o.deref && !this.db.inTransaction) return this.latestState(id);
    const s = this.st.subject.get(id);
    if (!s) return null;
    const state = this.reducer.stateAt(id, s.type, o.at);
    return o.deref ? this.deref(state, o.derefDepth ?? 1, o.at, new Set([id])) : state;
  }

  private latestState(id: string): JsonObject | null {
    const version = this.dataVersion.get() as number;
    if (version !== this.seenVersion || this.latest.size > LATEST_CACHE_MAX) {
      this.latest.clear();
      this.seenVersion = version;
    }
    const hit = this.latest.get(id);
    if (hit) return hit;
    const s = this.st.subject.get(id);
    if (!s) return null;
    const state = deepFreeze(this.reducer.stateAt(id, s.type));
    this.latest.set(id, state);
    return state;
  }

  /** Embed `{__ref, ...target}` for each reference, `depth` levels deep; `__missing` / `__circular` markers. */
  private deref(state: JsonObject, depth: number, at: number | undefined, branch: Set<string>): JsonObject {
    const visit = (v: unknown, d: number, seen: Set<string>): unknown => {
      const target = refTarget(v);
      if (target !== null) {
        if (d === 0) return v;
        if (seen.has(target)) return { __ref: v, __circular: true };
        const s = this.st.subject.get(target);
        if (!s) return { __ref: v, __missing: true };
        const next = new Set(seen).add(target);
        const t = this.reducer.stateAt(target, s.type, at);
        return { __ref: v, ...mapValues(t, (x) => visit(x, d - 1, next)) };
      }
      if (Array.isArray(v)) return v.map((x) => visit(x, d, seen));
      if (isPlainObject(v)) return mapValues(v, (x) => visit(x, d, seen));
      return v;
    };
    return mapValues(state, (x) => visit(x, depth, branch));
  }

  private listSlices(o: SliceListOptions): SliceInfo[] {
    this.loadSchema();
    if (o.from !== undefined && o.to !== undefined && o.from > o.to) {
      throw new NbError("invalid_input", "/from: from must not be after to", {
        fields: [{ pointer: "/from", message: "after to" }],
      });
    }
    if (o.subjectMode && !o.subjectIds) {
      throw new NbError("invalid_input", "/subjectMode: needs subjectIds", {
        fields: [{ pointer: "/subjectMode", message: "needs subjectIds" }],
      });
    }
    const where: string[] = [];
    const args: unknown[] = [];
    if (o.from !== undefined) {
      where.push("s.instant >= ?");
      args.push(o.from);
    }
    if (o.to !== undefined) {
      where.push("s.instant <= ?");
      args.push(o.to);
    }
    if (o.subjectIds) {
      if (new Set(o.subjectIds).size !== o.subjectIds.length) {
        throw new NbError("invalid_input", "/subjectIds: duplicate ids", {
          fields: [{ pointer: "/subjectIds", message: "duplicate ids" }],
        });
      }
      const unknown = o.subjectIds.filter((id) => !this.st.subject.get(id));
      if (unknown.length) throw new NbError("not_found", `unknown subject(s): ${unknown.join(", ")}`);
      const marks = o.subjectIds.map(() => "?").join(",");
      if ((o.subjectMode ?? "any") === "any") {
        where.push(`EXISTS (SELECT 1 FROM patches p WHERE p.slice_id = s.id AND p.subject_id IN (${marks}))`);
      } else {
        where.push(
          `(SELECT count(DISTINCT p.subject_id) FROM patches p WHERE p.slice_id = s.id AND p.subject_id IN (${marks})) = ?`,
        );
        args.push(...o.subjectIds);
        args.push(o.subjectIds.length);
      }
      if ((o.subjectMode ?? "any") === "any") args.push(...o.subjectIds);
    }
    const latestFirst = o.limit !== undefined && o.from === undefined;
    const sql = `SELECT s.id, s.instant, s.title, s.summary, s.kind FROM slices s ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY s.instant ${latestFirst ? "DESC" : "ASC"} ${o.limit !== undefined ? "LIMIT ?" : ""}`;
    if (o.limit !== undefined) args.push(o.limit);
    const rows = this.db.prepare<unknown[], SliceRow>(sql).all(...args);
    if (latestFirst) rows.reverse();
    return rows.map((r) => this.sliceInfo(r, o.withPatches ?? false));
  }

  private sliceInfo(r: SliceRow, withPatches: boolean): SliceInfo {
    const info: SliceInfo = {
      id: r.id,
      instant: r.instant,
      title: r.title,
      summary: r.summary,
      kind: r.kind,
      patchCount: 0,
    };
    if (withPatches) {
      info.patches = this.st.patchesOfSlice.all(r.id).map(patchFromRow);
      info.patchCount = info.patches.length;
    } else info.patchCount = this.st.patchCount.get(r.id)?.n ?? 0;
    const issues = this.st.issuesOfSlice.all(r.id).map(issueFromRow);
    if (issues.length || withPatches) info.issues = issues;
    return info;
  }

  private sliceRow(sliceId: string): SliceRow {
    parseOrThrow(z.string().min(1), sliceId, "sliceId");
    const s = this.st.sliceById.get(sliceId);
    if (!s) throw new NbError("not_found", `no slice with id ${sliceId}`);
    return s;
  }
}

/** Identity of a file's current content (inode, size, mtime), or "missing". */
function fileStamp(file: string): string {
  try {
    const s = statSync(file, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}`;
  } catch {
    return "missing";
  }
}

/** A copy of `o` with `f` applied to each value (own data properties only, `__proto__` keys included). */
function mapValues(o: JsonObject, f: (v: unknown) => unknown): JsonObject {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
}

/** The project's World Engine (one per open project, closed with it). */
export function openWorld(project: Project): World {
  return project.resource(
    "world",
    () =>
      new World({
        dbPath: project.dbPath("world"),
        schemaPath: join(project.root, "world-engine", "schema.yaml"),
        schemaRoot: project.realRoot,
        embed: () => blockingEmbedder(project.workspace.readConfig()),
      }),
  );
}
