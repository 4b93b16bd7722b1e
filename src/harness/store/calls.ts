import type Database from "better-sqlite3";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { now } from "../../core/sqlite.js";
import { CurrencySchema, UsageSchema } from "../../models/prices.js";
import { type Manifest, ManifestSchema } from "../manifest.js";

/** One model call as stored: its usage, cost and manifest. */
export const ModelCallSchema = z
  .object({
    seq: z.number().int().positive(),
    runId: z.string(),
    model: z.string(),
    purpose: z.enum(["turn", "compaction"]),
    day: z.string(),
    usage: UsageSchema,
    /** False when the provider reported no usage and the counts are the manifest's estimate. */
    reported: z.boolean(),
    cost: z.object({ amount: z.number(), currency: CurrencySchema }).strict().nullable(),
    manifest: ManifestSchema,
    createdAt: z.string(),
  })
  .strict();
export type ModelCall = z.infer<typeof ModelCallSchema>;

/** Usage and cost summed over calls: tokens, money per currency, and calls without a price. */
export const UsageTotalsSchema = z
  .object({
    calls: z.number().int(),
    inputTokens: z.number().int(),
    outputTokens: z.number().int(),
    cacheReadTokens: z.number().int(),
    cacheWriteTokens: z.number().int(),
    usd: z.number(),
    cny: z.number(),
    unpriced: z.number().int(),
  })
  .strict();
export type UsageTotals = z.infer<typeof UsageTotalsSchema>;

export type NewModelCall = Omit<ModelCall, "seq" | "day" | "createdAt">;

interface CallRow {
  seq: number;
  run_id: string;
  model: string;
  purpose: "turn" | "compaction";
  day: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reported: number;
  cost: number | null;
  currency: "USD" | "CNY" | null;
  manifest: string;
  created_at: string;
}

const SUMS = `COUNT(*) AS calls, COALESCE(SUM(input_tokens), 0) AS inputTokens, COALESCE(SUM(output_tokens), 0) AS outputTokens,
  COALESCE(SUM(cache_read_tokens), 0) AS cacheReadTokens, COALESCE(SUM(cache_write_tokens), 0) AS cacheWriteTokens,
  COALESCE(SUM(CASE WHEN currency = 'USD' THEN cost END), 0) AS usd, COALESCE(SUM(CASE WHEN currency = 'CNY' THEN cost END), 0) AS cny,
  COALESCE(SUM(cost IS NULL), 0) AS unpriced`;

/** The UTC day of an ISO time. */
export const dayOf = (iso: string): string => iso.slice(0, 10);

/** The model_calls table: one row per model call, appended as the call ends. */
export class ModelCallTable {
  private readonly insertStmt: Database.Statement;
  private readonly nextSeq: Database.Statement;
  private readonly bySession: Database.Statement;
  private readonly one: Database.Statement;
  private readonly sumSession: Database.Statement;
  private readonly sumProjectDay: Database.Statement;

  constructor(private readonly db: Database.Database) {
    this.insertStmt = db.prepare(
      `INSERT INTO model_calls (session_id, seq, run_id, project, model, purpose, day, input_tokens, output_tokens,
        cache_read_tokens, cache_write_tokens, reported, cost, currency, manifest, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.nextSeq = db
      .prepare("SELECT COALESCE(MAX(seq), 0) + 1 FROM model_calls WHERE session_id = ?")
      .pluck();
    this.bySession = db.prepare("SELECT * FROM model_calls WHERE session_id = ? ORDER BY seq");
    this.one = db.prepare("SELECT * FROM model_calls WHERE session_id = ? AND seq = ?");
    this.sumSession = db.prepare(`SELECT ${SUMS} FROM model_calls WHERE session_id = ?`);
    this.sumProjectDay = db.prepare(`SELECT ${SUMS} FROM model_calls WHERE project IS ? AND day = ?`);
  }

  /** Record a call of session `sessionKey` (in `project`); returns it with its number. */
  record(sessionKey: number, project: string | null, c: NewModelCall): ModelCall {
    const createdAt = now();
    const day = dayOf(createdAt);
    const seq = this.db
      .transaction(() => {
        const n = this.nextSeq.get(sessionKey) as number;
        this.insertStmt.run(
          sessionKey,
          n,
          c.runId,
          project,
          c.model,
          c.purpose,
          day,
          c.usage.inputTokens,
          c.usage.outputTokens,
          c.usage.cacheReadTokens,
          c.usage.cacheWriteTokens,
          c.reported ? 1 : 0,
          c.cost?.amount ?? null,
          c.cost?.currency ?? null,
          JSON.stringify(c.manifest),
          createdAt,
        );
        return n;
      })
      .immediate();
    return { ...c, seq, day, createdAt };
  }

  /** A session's calls in order (manifests included). */
  list(sessionKey: number): ModelCall[] {
    return (this.bySession.all(sessionKey) as CallRow[]).map(toCall);
  }

  /** Call number `seq` of a session; `not_found` when it made no such call. */
  get(sessionKey: number, seq: number): ModelCall {
    const row = this.one.get(sessionKey, seq) as CallRow | undefined;
    if (!row) throw new NbError("not_found", `Session ${sessionKey} made no model call ${seq}`);
    return toCall(row);
  }

  sessionTotals(sessionKey: number): UsageTotals {
    return this.sumSession.get(sessionKey) as UsageTotals;
  }

  /** A project's sums on a UTC day (`null`: sessions outside any project). */
  projectDayTotals(project: string | null, day: string): UsageTotals {
    return this.sumProjectDay.get(project, day) as UsageTotals;
  }
}

function toCall(r: CallRow): ModelCall {
  return {
    seq: r.seq,
    runId: r.run_id,
    model: r.model,
    purpose: r.purpose,
    day: r.day,
    usage: {
      inputTokens: r.input_tokens,
      outputTokens: r.output_tokens,
      cacheReadTokens: r.cache_read_tokens,
      cacheWriteTokens: r.cache_write_tokens,
    },
    reported: r.reported === 1,
    cost: r.cost === null || r.currency === null ? null : { amount: r.cost, currency: r.currency },
    manifest: JSON.parse(r.manifest) as Manifest,
    createdAt: r.created_at,
  };
}
