import type Database from "better-sqlite3";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { ModeSchema } from "../../core/modes.js";
import { now, toKey } from "../../core/sqlite.js";
import { parseOrThrow } from "../../core/validate.js";
import { MODEL_REF } from "../../models/reference.js";
import type { Profile } from "../../profiles/types.js";
import { type SessionRow, toSession } from "./rows.js";
import { type Session, type SessionStatus, SessionStatusSchema } from "./schema.js";

/** What creating a session takes. `initial` is validated with the profile's own schema. */
export interface CreateSessionOptions {
  profile: Pick<Profile, "key" | "initial">;
  project?: string | null;
  title?: string;
  mode?: Session["mode"];
  /** Pinned model reference `<providerId>/<modelId>` (only the reference is stored, never a key). */
  model?: string | null;
  initial?: unknown;
  parentSessionId?: string | null;
}

/** Filters for listing sessions; `project: null` lists workspace-level sessions only. */
export interface ListSessionsOptions {
  project?: string | null;
  profileKey?: string;
  status?: SessionStatus;
  parentSessionId?: string;
  limit?: number;
}

/** SQL for the next value of the store-wide activity counter. */
export const NEXT_ACTIVITY = "(SELECT COALESCE(MAX(activity), 0) + 1 FROM sessions)";

const OptionsSchema = z
  .object({
    project: z.string().min(1).nullable().optional(),
    title: z.string().max(200).optional(),
    mode: ModeSchema.optional(),
    model: z.string().regex(MODEL_REF, "expected <providerId>/<modelId>").nullable().optional(),
  })
  .strict();

const UpdateSchema = z
  .object({
    title: z.string().max(200).optional(),
    status: SessionStatusSchema.optional(),
    model: OptionsSchema.shape.model,
  })
  .strict();

/** Session headers: create, read, list, update. */
export class SessionTable {
  private readonly insert: Database.Statement;
  private readonly byId: Database.Statement;
  private readonly updates = new Map<string, Database.Statement>();
  private readonly setRunner: Database.Statement;
  private readonly dropRunner: Database.Statement;
  private readonly getRunner: Database.Statement;

  /** `runner`: this process, recorded as the runner of each session it sets running. */
  constructor(
    private readonly db: Database.Database,
    private readonly runner: string,
  ) {
    this.setRunner = db.prepare(
      `INSERT INTO session_runners (session_id, runner, since) VALUES (?, ?, ?)
       ON CONFLICT(session_id) DO UPDATE SET runner = excluded.runner, since = excluded.since`,
    );
    this.dropRunner = db.prepare("DELETE FROM session_runners WHERE session_id = ?");
    this.getRunner = db.prepare("SELECT runner FROM session_runners WHERE session_id = ?");
    this.insert = db.prepare(
      `INSERT INTO sessions (profile_key, project, title, initial_mode, mode, model, initial, status,
         parent_session_id, created_at, updated_at, activity)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'idle', ?, ?, ?, ${NEXT_ACTIVITY})`,
    );
    this.byId = db.prepare("SELECT * FROM sessions WHERE id = ?");
  }

  /** Create a session; `invalid_input` (with JSON Pointers under /initial) when `initial` does not fit the profile. */
  create(opts: CreateSessionOptions): Session {
    const o = parseOrThrow(
      OptionsSchema,
      { project: opts.project, title: opts.title, mode: opts.mode, model: opts.model },
      "session options",
    );
    // Wrapped so that field errors point under /initial.
    const { initial } = parseOrThrow(
      z.object({ initial: opts.profile.initial }),
      { initial: opts.initial ?? {} },
      `initial for profile ${opts.profile.key}`,
    ) as { initial: Record<string, unknown> };
    const parent = opts.parentSessionId ? this.getRow(opts.parentSessionId).id : null;
    const mode = o.mode ?? "normal";
    const t = now();
    const info = this.insert.run(
      opts.profile.key,
      o.project ?? null,
      o.title ?? "",
      mode,
      mode,
      o.model ?? null,
      JSON.stringify(initial),
      parent,
      t,
      t,
    );
    return this.get(String(info.lastInsertRowid));
  }

  /** A session by id; `not_found` when none. */
  get(id: string): Session {
    return toSession(this.getRow(id));
  }

  /** The raw row by id; `not_found` when none. */
  getRow(id: string): SessionRow {
    const row = this.byId.get(toKey(id, "session")) as SessionRow | undefined;
    if (!row) throw new NbError("not_found", `No session with id "${id}"`);
    return row;
  }

  /** Sessions, most recently updated first. */
  list(opts: ListSessionsOptions = {}): Session[] {
    const where: string[] = [];
    const args: unknown[] = [];
    if (opts.project === null) where.push("project IS NULL");
    else if (opts.project !== undefined) {
      where.push("project = ?");
      args.push(opts.project);
    }
    if (opts.profileKey) {
      where.push("profile_key = ?");
      args.push(opts.profileKey);
    }
    if (opts.status) {
      where.push("status = ?");
      args.push(opts.status);
    }
    if (opts.parentSessionId) {
      where.push("parent_session_id = ?");
      args.push(toKey(opts.parentSessionId, "session"));
    }
    let limit = "";
    if (opts.limit && Number.isFinite(opts.limit)) {
      limit = "LIMIT ?";
      args.push(Math.max(1, Math.floor(opts.limit)));
    }
    const sql = `SELECT * FROM sessions ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY activity DESC ${limit}`;
    return (this.db.prepare(sql).all(...args) as SessionRow[]).map(toSession);
  }

  /**
   * Change the title, status or pinned model. A session set running is recorded as run by this
   * process; any other status clears its runner.
   */
  update(id: string, patch: { title?: string; status?: SessionStatus; model?: string | null }): Session {
    const p = parseOrThrow(UpdateSchema, patch, "session update");
    const key = this.getRow(id).id;
    const sets: string[] = [];
    const args: unknown[] = [];
    for (const [col, v] of [
      ["title", p.title],
      ["status", p.status],
      ["model", p.model],
    ] as const) {
      if (v === undefined) continue;
      sets.push(`${col} = ?`);
      args.push(v);
    }
    if (sets.length) {
      const t = now();
      this.db.transaction(() => {
        this.updateStatement(sets).run(...args, t, key);
        if (p.status === "running") this.setRunner.run(key, this.runner, t);
        else if (p.status !== undefined) this.dropRunner.run(key);
      })();
    }
    return this.get(id);
  }

  /** The process recorded as running a session (`host:pid:start`); null when none is. */
  runnerOf(id: string): string | null {
    const row = this.getRunner.get(toKey(id, "session")) as { runner: string } | undefined;
    return row?.runner ?? null;
  }

  // Status changes happen twice per run: the statement for each column set is prepared once.
  private updateStatement(sets: string[]): Database.Statement {
    const sql = `UPDATE sessions SET ${sets.join(", ")}, updated_at = ? WHERE id = ?`;
    let stmt = this.updates.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.updates.set(sql, stmt);
    }
    return stmt;
  }
}
