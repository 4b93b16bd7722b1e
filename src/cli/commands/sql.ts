import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import { dispatch } from "../../tools/dispatch.js";
import { MODES, type Mode } from "../../tools/types.js";
import { openCliContext } from "../context.js";
import { EXIT, printJson, reportCliError } from "../output.js";

interface SqlOptions {
  workspace?: string;
  project?: string;
  params?: string;
  describe?: boolean;
  mode: string;
  approve?: boolean;
  json?: boolean;
}

function parseParams(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw new NbError("invalid_input", `--params is not valid JSON: ${(e as Error).message}`);
  }
}

/** `nbook sql "<statement>"`: execute_sql on the current project, through the same dispatch as agents. */
export function registerSql(program: Command): void {
  program
    .command("sql")
    .description(
      "Run one SQL statement on the project's project.sqlite (execute_sql), or --describe the schema",
    )
    .argument("[statement]", "one SELECT / WITH / VALUES / EXPLAIN / INSERT / UPDATE / DELETE statement")
    .option("--params <json>", "bind values as a JSON array (for ?) or object (for :name)")
    .option("--describe", "list the tables, columns and what they mean")
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project (default: the project folder you are in)")
    .option("--mode <mode>", "normal, discuss or plan (discuss/plan stop writes with a preview)", "normal")
    .option("--approve", "approve a write that the mode would stop")
    .option("--json", "print exactly one JSON object")
    .action(async (statement: string | undefined, o: SqlOptions) => {
      let close = () => {};
      try {
        if (!MODES.includes(o.mode as Mode))
          throw new NbError("invalid_input", `--mode must be one of ${MODES.join(", ")}`);
        if (statement === undefined && !o.describe)
          throw new NbError("invalid_input", "Give a statement or --describe");
        const ctx = openCliContext(o, true);
        close = () => ctx.workspace.close();
        const input = o.describe ? { describe: true } : { sql: statement, params: parseParams(o.params) };
        const result = await dispatch(
          { key: "execute_sql", input },
          {
            registry: ctx.registry,
            workspace: ctx.workspace,
            project: ctx.project,
            mode: o.mode as Mode,
            profileKey: null,
            allow: "all",
            approved: o.approve === true,
          },
        );
        if (o.json) printJson(result);
        else if (result.ok) process.stdout.write(`${result.text}\n`);
        else process.stderr.write(`error [${result.error.code}]: ${result.error.message}\n`);
        process.exitCode = result.ok ? EXIT.ok : EXIT.toolError;
      } catch (e) {
        reportCliError(e, o.json);
      } finally {
        close();
      }
    });
}
