import type { Command } from "commander";
import { Workspace } from "../../workspace/workspace.js";
import { reportCliError, writeOut } from "../output.js";

/** `nbook init <dir>`: create a workspace. */
export function registerInit(program: Command): void {
  program
    .command("init")
    .description("Create a NeuroBook workspace (a folder of projects with a .nbook/ control area)")
    .argument("<dir>", "folder to create or initialise")
    .action((dir: string) => {
      try {
        const ws = Workspace.init(dir);
        writeOut(
          `Workspace ready at ${ws.root}\nNext: cd ${dir} && nbook project create <name> [--sample]\n`,
        );
      } catch (e) {
        reportCliError(e);
      }
    });
}
