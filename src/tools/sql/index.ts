import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { plotRowLogScript } from "../../plot/change-log.js";
import { plotDb } from "../../plot/db.js";
import { PLOT_SCHEMA_DOC } from "../../plot/schema-doc.js";
import type { Project } from "../../workspace/project.js";
import { defineTool } from "../define.js";
import type {
  AnyTool,
  BasisSpec,
  RunGrant,
  ToolContext,
  ToolPreview,
  ToolResult,
  WriteGrant,
} from "../types.js";
import { describeTables, formatDescription } from "./describe.js";
import { formatTable, rowObjects } from "./format.js";
import {
  type SqlBasis,
  SqlBasisSchema,
  type SqlParams,
  SqlRunner,
  type StatementOutcome,
  type StatementRequest,
} from "./runner.js";
import { checkStatementText } from "./statement-text.js";

/** Rows a read returns at most. */
export const MAX_SQL_ROWS = 200;

/** Characters of text a result returns at most (about; the row that crosses it is the last). */
const MAX_SQL_CHARS = 1_000_000;

/** Characters one cell returns at most; longer ones are cut. */
const MAX_SQL_CELL_CHARS = 10_000;

/** RETURNING rows shown in an approval preview. */
const PREVIEW_ROWS = 20;

const Value = z.union([z.string(), z.number(), z.boolean(), z.null()]);

const Input = z
  .object({
    sql: z
      .string()
      .min(1)
      .max(100_000)
      .optional()
      .describe(
        "Exactly one statement: SELECT, WITH … SELECT, VALUES, EXPLAIN, or INSERT / UPDATE / DELETE (also WITH … INSERT/UPDATE/DELETE)",
      ),
    params: z
      .union([z.array(Value).max(1000), z.record(z.string(), Value)])
      .optional()
      .describe("Bind values: an array for ? placeholders, or an object for :name / @name / $name"),
    describe: z
      .literal(true)
      .optional()
      .describe("Instead of running SQL, list the tables, their columns and what each column means"),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.describe && v.sql !== undefined) {
      ctx.addIssue({ code: "custom", path: ["describe"], message: "give either sql or describe, not both" });
    }
    if (!v.describe && v.sql === undefined) {
      ctx.addIssue({ code: "custom", path: ["sql"], message: "required (or pass describe: true)" });
    }
    if (v.params !== undefined && v.sql === undefined) {
      ctx.addIssue({ code: "custom", path: ["params"], message: "params need a sql statement" });
    }
  });

type SqlInput = z.infer<typeof Input>;

/** The project's warm SQL runner; the plot database is opened (and migrated) first so the file exists. */
export function projectSqlRunner(project: Project): SqlRunner {
  plotDb(project);
  return project.resource("sql-runner", () => new SqlRunner(project.dbPath("project")));
}

function requireProject(ctx: ToolContext): Project {
  if (!ctx.project) throw new NbError("invalid_input", "execute_sql needs a current project");
  return ctx.project;
}

function statement(input: SqlInput, writes: WriteGrant, maxRows: number): StatementRequest {
  const sql = input.sql ?? "";
  return {
    sql,
    command: checkStatementText(sql),
    params: input.params as SqlParams | undefined,
    maxRows,
    maxChars: MAX_SQL_CHARS,
    maxCellChars: MAX_SQL_CELL_CHARS,
    allowWrite: writes !== "none",
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

async function describeSchema(ctx: ToolContext): Promise<ToolResult> {
  const tables = describeTables(
    await projectSqlRunner(requireProject(ctx)).describe(ctx.signal),
    PLOT_SCHEMA_DOC,
  );
  return { text: formatDescription(tables), details: { tables } };
}

/** What a write would change, as the user approves it: the row count, any RETURNING rows, the basis. */
function writePreview(input: SqlInput, out: StatementOutcome, headline: string): ToolPreview {
  const columns = out.columns;
  const rows = out.rows.slice(0, PREVIEW_ROWS);
  const lines = [headline, input.sql ?? ""];
  if (columns.length) lines.push(formatTable(columns, rows));
  return {
    text: lines.join("\n"),
    details: { sql: input.sql, changes: out.changes ?? 0, columns, rows: rowObjects(columns, rows) },
    basis: out.basis ?? out.conflict,
  };
}

const SQL_BASIS: BasisSpec<SqlBasis> = {
  schema: SqlBasisSchema,
  mismatch: "The approval does not match this execute_sql call; nothing was changed",
};

async function runStatement(
  input: SqlInput,
  ctx: ToolContext,
  grant: RunGrant<SqlBasis>,
): Promise<ToolResult> {
  const expect = grant.approval?.basis;
  const project = requireProject(ctx);
  const req = {
    ...statement(input, grant.writes, MAX_SQL_ROWS),
    ...(expect ? { expect } : {}),
    ...(grant.changeId ? { rowLog: plotRowLogScript(plotDb(project), grant.changeId) } : {}),
  };
  const out = await projectSqlRunner(project).run(req, ctx.signal);
  if (expect && out.conflict) {
    const now = plural(out.conflict.changes, "row");
    const differs =
      out.conflict.changes === expect.changes
        ? `it would now change ${now}, but not the rows the approved preview counted`
        : `it would now change ${now} where the approved preview counted ${plural(expect.changes, "row")}`;
    const fresh = writePreview(input, out, `${req.command} would now change ${now} (dry run, rolled back):`);
    throw new NbError(
      "conflict",
      `The statement no longer does what the user approved: ${differs}. It was rolled back; nothing was changed.\n${fresh.text}\nCall execute_sql again to ask the user to approve it as it stands.`,
      { details: { preview: fresh } },
    );
  }
  const rows = rowObjects(out.columns, out.rows);
  const details = {
    command: req.command,
    effect: out.write ? "write" : "read",
    columns: out.columns,
    rows,
    rowCount: rows.length,
    truncated: out.truncated,
    ...(out.cutCells ? { cutCells: out.cutCells } : {}),
    ...(out.changes !== undefined ? { changes: out.changes } : {}),
  };
  const parts: string[] = [];
  if (out.write) parts.push(`${plural(out.changes ?? 0, "row")} changed.`);
  if (out.columns.length) {
    parts.push(formatTable(out.columns, out.rows));
    parts.push(
      out.truncated
        ? `(first ${rows.length} rows shown; truncated: more rows exist. Narrow the WHERE clause, aggregate, or page with LIMIT/OFFSET.)`
        : `(${plural(rows.length, "row")})`,
    );
    if (out.cutCells) {
      parts.push(
        `(${plural(out.cutCells, "cell")} longer than ${MAX_SQL_CELL_CHARS} characters cut short; read the rest with substr(column, start, length).)`,
      );
    }
  }
  const change: ToolResult["change"] =
    out.write && (out.changes ?? 0) > 0
      ? {
          targets: null,
          rows: { before: expect ?? null, after: { changes: out.changes ?? 0 } },
          summary: `${req.command}: ${plural(out.changes ?? 0, "row")} changed`,
        }
      : "unchanged";
  return { text: parts.join("\n"), details, change };
}

/** execute_sql (seed: "only touches the current project's project.sqlite"). */
export const executeSql = defineTool({
  key: "execute_sql",
  group: "sql",
  description: `Run one SQL statement against this project's .nbook/project.sqlite (the plot tables) — and nothing else: no other file, no world.sqlite, no ATTACH.
- Allowed: SELECT, WITH … SELECT, VALUES, EXPLAIN, INSERT, UPDATE, DELETE (and WITH … INSERT/UPDATE/DELETE). Refused: DDL, PRAGMA (also pragma_* functions), ATTACH/DETACH, VACUUM, transactions, REPLACE/REINDEX/ANALYZE, load_extension.
- Exactly one statement per call. Bind values with params instead of pasting them into the text.
- Reads return at most ${MAX_SQL_ROWS} rows and about ${MAX_SQL_CHARS} characters (truncated: true when more exist); a longer cell is cut at ${MAX_SQL_CELL_CHARS} characters (cutCells); a statement is stopped after 2 s.
- Writes bypass the plot services' rules (ordering, promise fulfilment, validation) and do not bump updated_at: prefer the save_* plot tools; use SQL writes for bulk fixes. Foreign keys are enforced.
- Call with {describe: true} first to see the tables and what each column means.`,
  input: Input,
  effect: "per-call",
  basis: SQL_BASIS,
  async prepare(input, ctx) {
    const runner = () => projectSqlRunner(requireProject(ctx));
    const write = input.describe
      ? false
      : (await runner().inspect(statement(input, "none", MAX_SQL_ROWS), ctx.signal)).write;
    return {
      effect: write ? "write" : "read",
      targets: null,
      preview: async () => {
        const req = { ...statement(input, "any", PREVIEW_ROWS), allowWrite: true };
        const out = await runner().preview(req, ctx.signal);
        return writePreview(
          input,
          out,
          `${req.command} would change ${plural(out.changes ?? 0, "row")} (dry run, rolled back):`,
        );
      },
      run: (grant) => (input.describe ? describeSchema(ctx) : runStatement(input, ctx, grant)),
    };
  },
});

/** The SQL tool group. */
export const sqlTools: AnyTool[] = [executeSql];
