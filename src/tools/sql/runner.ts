import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { type ErrorInfo, NbError } from "../../core/errors.js";
import type { RowLogScript } from "../../core/row-log.js";
import type { SqlCommand } from "./statement-text.js";

/** How long one statement may run before its process is killed. */
export const DEFAULT_SQL_TIMEOUT_MS = 2000;

/** How long the SQL process may take to start (loading better-sqlite3 on a busy machine). */
const STARTUP_TIMEOUT_MS = 20_000;

const PROCESS_FILE = fileURLToPath(new URL("./sql-process.mjs", import.meta.url));

/** A bind value: JSON scalars; booleans bind as 1/0. */
export type SqlValue = string | number | boolean | null;
export type SqlParams = SqlValue[] | Record<string, SqlValue>;

/** One statement to inspect, run or preview. */
export interface StatementRequest {
  sql: string;
  command: SqlCommand;
  params?: SqlParams;
  /** Rows returned at most; more set `truncated`. */
  maxRows: number;
  /** No further row is returned once the texts returned hold this many characters (sets `truncated`). */
  maxChars: number;
  /** A longer text cell (or blob, as hex) is cut to this many characters and counted in `cutCells`. */
  maxCellChars: number;
  /** False in a read-only mode without approval: a writing statement is refused. */
  allowWrite: boolean;
  /** An approved write: commit only if it touches exactly these rows, else roll back (see `conflict`). */
  expect?: SqlBasis;
  /** A recorded write: the SQL that logs the rows it touches, run around it in its transaction. */
  rowLog?: RowLogScript;
}

/**
 * What a write changed, as an approval is pinned to it: SQLite's change count and a sha256 of the
 * rows touched (cascades included) — inserts by table, updates and deletes by table and row key.
 */
export const SqlBasisSchema = z.object({ changes: z.number().int(), rows: z.string() }).strict();
export type SqlBasis = z.infer<typeof SqlBasisSchema>;

/** What running (or dry-running) a statement gives back. */
export interface StatementOutcome {
  write: boolean;
  columns: string[];
  rows: unknown[][];
  truncated: boolean;
  /** Cells longer than `maxCellChars`, returned cut short. */
  cutCells: number;
  /** Rows changed, for writes. */
  changes?: number;
  /** From `preview`: what an approval of this write must match. */
  basis?: SqlBasis;
  /** From an approved `run` that touched other rows than `expect`: what it did touch (rolled back). */
  conflict?: SqlBasis;
}

/** A live column of project.sqlite. */
export interface LiveColumn {
  name: string;
  type: string;
  notNull: boolean;
  primaryKey: boolean;
  default: string | null;
  references: string | null;
}

export interface LiveTable {
  name: string;
  columns: LiveColumn[];
}

type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: ErrorInfo };

/**
 * Runs statements in a separate, warm process bound to one database file. Requests are served one
 * at a time; a statement that outlives the time limit (or whose call is aborted) gets the process
 * killed, and the next request starts a fresh one.
 */
export class SqlRunner {
  private child: Promise<ChildProcess> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;

  constructor(
    private readonly file: string,
    private readonly timeoutMs = DEFAULT_SQL_TIMEOUT_MS,
  ) {}

  /** Decide, from SQLite, whether a statement writes (refusing what is not allowed). */
  inspect(req: StatementRequest, signal?: AbortSignal): Promise<{ write: boolean }> {
    return this.request({ op: "inspect", ...req }, signal);
  }

  /** Run a statement; with `expect`, in a transaction rolled back unless it touches exactly those rows. */
  run(req: StatementRequest, signal?: AbortSignal): Promise<StatementOutcome> {
    return this.request({ op: "run", ...req }, signal);
  }

  /** Run a writing statement in a transaction that is rolled back, to see what it would change (and its basis). */
  preview(req: StatementRequest, signal?: AbortSignal): Promise<StatementOutcome> {
    return this.request({ op: "preview", ...req }, signal);
  }

  /** Every table of the database with its live columns. */
  describe(signal?: AbortSignal): Promise<LiveTable[]> {
    return this.request({ op: "describe" }, signal);
  }

  /** Stop the process. */
  close(): void {
    const child = this.child;
    this.child = null;
    child?.then((c) => c.kill("SIGKILL")).catch(() => undefined);
  }

  private request<T>(body: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    const next = this.queue.then(() => this.send<T>(body, signal));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private start(): Promise<ChildProcess> {
    // A clean node: no loaders or flags inherited from tsx or vitest.
    const { NODE_OPTIONS: _drop, ...env } = process.env;
    const child = fork(PROCESS_FILE, [this.file], {
      execArgv: [],
      env,
      serialization: "advanced",
      stdio: ["ignore", "ignore", "ignore", "ipc"],
    });
    const ready = new Promise<ChildProcess>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new NbError("timeout", "The SQL process did not start in time"));
      }, STARTUP_TIMEOUT_MS);
      child.once("message", () => {
        clearTimeout(timer);
        resolve(child);
      });
      child.once("exit", (code, sig) => {
        clearTimeout(timer);
        reject(new NbError("internal", `The SQL process could not start (${sig ?? code})`));
      });
      child.once("error", (e) => {
        clearTimeout(timer);
        reject(new NbError("internal", `The SQL process could not start: ${e.message}`));
      });
    });
    child.on("exit", () => {
      if (this.child === ready) this.child = null;
    });
    idle(child);
    this.child = ready;
    ready.catch(() => {
      if (this.child === ready) this.child = null;
    });
    return ready;
  }

  private async send<T>(body: Record<string, unknown>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw new NbError("aborted", "The statement was aborted before it started");
    const child = await (this.child ?? this.start());
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        child.off("message", onMessage);
        child.off("exit", onExit);
        signal?.removeEventListener("abort", onAbort);
        idle(child);
      };
      const stop = (error: NbError) => {
        done();
        this.kill(child);
        reject(error);
      };
      const onMessage = (m: Reply) => {
        if (m.id !== id) return;
        done();
        if (m.ok) resolve(m.result as T);
        else reject(new NbError(m.error.code, m.error.message, { fields: m.error.fields }));
      };
      const onExit = (code: number | null, sig: string | null) => {
        done();
        reject(new NbError("internal", `The SQL process stopped unexpectedly (${sig ?? code})`));
      };
      const onAbort = () => stop(new NbError("aborted", "The statement was aborted"));
      const timer = setTimeout(
        () =>
          stop(new NbError("timeout", `The statement ran longer than ${this.timeoutMs} ms and was stopped`)),
        this.timeoutMs,
      );
      child.on("message", onMessage);
      child.on("exit", onExit);
      signal?.addEventListener("abort", onAbort, { once: true });
      child.ref();
      child.channel?.ref();
      child.send({ id, ...body });
    });
  }

  private kill(child: ChildProcess): void {
    child.kill("SIGKILL");
    this.child = null;
  }
}

/** Let the process exit while the SQL process waits for work. */
function idle(child: ChildProcess): void {
  child.unref();
  child.channel?.unref();
}
