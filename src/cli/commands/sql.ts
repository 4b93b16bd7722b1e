import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import { openCliContext } from "../context.js";
import { parseJsonOption, parseMode } from "../input.js";
import { reportCliError } from "../output.js";
import { runCliToolCall } from "../tool-call.js";

interface SqlOptions {
  workspace?: string;
  project?: string;
  params?: string;
  describe?: boolean;
  mode: string;
  approve?: boolean;
  json?: boolean;
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
    .option("--describe", "list the tables, columns and what they mean (instead of a statement)")
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project (default: the project folder you are in)")
    .option("--mode <mode>", "normal, discuss or plan (discuss/plan stop writes with a preview)", "normal")
    .option("--approve", "approve a write that the mode would stop")
    .option("--json", "print exactly one JSON object")
    .action(async (statement: string | undefined, o: SqlOptions) => {
      let close = () => {};
      try {
        const mode = parseMode(o.mode);
        if (statement === undefined && !o.describe)
          throw new NbError(
            "invalid_input",
            'Give one statement (e.g. nbook sql "SELECT * FROM story_chapter"), or --describe to list the tables',
          );
        if (statement !== undefined && o.describe)
          throw new NbError("invalid_input", "Give a statement or --describe, not both");
        if (o.describe && o.params !== undefined)
          throw new NbError("invalid_input", "--params needs a statement, not --describe");
        const ctx = openCliContext(o, true);
        close = () => ctx.workspace.close();
        const input = o.describe
          ? { describe: true }
          : {
              sql: statement,
              params: o.params === undefined ? undefined : parseJsonOption("--params", o.params),
            };
        await runCliToolCall(
          ctx,
          { key: "execute_sql", input },
          { mode, approved: o.approve === true, json: o.json },
        );
      } catch (e) {
        reportCliError(e, o.json);
      } finally {
        close();
      }
    });
}
