import { Command, CommanderError } from "commander";
import { registerApprove } from "./commands/approve.js";
import { registerChat } from "./commands/chat.js";
import { registerDemo } from "./commands/demo.js";
import { registerInit } from "./commands/init.js";
import { registerMcp } from "./commands/mcp.js";
import { registerModels } from "./commands/models.js";
import { registerPlot } from "./commands/plot.js";
import { registerProfile } from "./commands/profile.js";
import { registerProject } from "./commands/project.js";
import { registerRun } from "./commands/run.js";
import { registerSessions } from "./commands/sessions.js";
import { registerSql } from "./commands/sql.js";
import { registerTool } from "./commands/tool.js";
import { registerWorld } from "./commands/world.js";
import { EXIT, printJson } from "./output.js";

/** Build the `nbook` command tree. */
export function buildProgram(): Command {
  const program = new Command("nbook")
    .description("NeuroBook: a local workspace where AI agents help you write a long novel.")
    .version("0.1.0")
    .showHelpAfterError()
    .exitOverride();
  registerInit(program);
  registerDemo(program);
  registerChat(program);
  registerRun(program);
  registerApprove(program);
  registerProject(program);
  registerTool(program);
  registerProfile(program);
  registerPlot(program);
  registerMcp(program);
  registerModels(program);
  registerSessions(program);
  registerSql(program);
  registerWorld(program);
  return program;
}

/** End quietly when the reader of stdout goes away (`nbook tool --list | head`), instead of a stack trace. */
function exitOnClosedStdout(): void {
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    process.exit();
  });
}

/** Run the CLI with process arguments. */
export async function main(argv = process.argv): Promise<void> {
  exitOnClosedStdout();
  try {
    await buildProgram().parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
      // Commander has explained on stderr; a --json caller still gets its one object on stdout.
      if (e.exitCode !== 0 && argv.includes("--json")) {
        printJson({ ok: false, error: { code: "invalid_input", message: e.message } });
      }
      return;
    }
    throw e;
  }
}
