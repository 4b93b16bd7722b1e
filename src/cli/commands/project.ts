import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import { Workspace } from "../../workspace/workspace.js";
import { printJson, reportCliError, writeOut } from "../output.js";

/** `nbook project create|list`. */
export function registerProject(program: Command): void {
  const project = program.command("project").description("Create and list novel projects");
  project
    .command("create")
    .description("Create a project with the full layout (or the sample novel)")
    .argument("<name>", "folder name of the project")
    .option("--title <title>", "the novel's title")
    .option("--language <lang>", "en or zh (default en)")
    .option(
      "--sample",
      "start from the sample novel in examples/ (English, or Chinese with --language zh), with its world and plot",
    )
    .option("--workspace <dir>", "workspace root (default: NBOOK_WORKSPACE or the nearest .nbook/)")
    .action(
      async (
        name: string,
        o: { title?: string; language?: string; sample?: boolean; workspace?: string },
      ) => {
        try {
          if (o.language !== undefined && o.language !== "en" && o.language !== "zh") {
            throw new NbError("invalid_input", `--language must be en or zh, not ${o.language}`);
          }
          const ws = Workspace.discover({ workspace: o.workspace });
          const opts = { title: o.title, language: o.language as "en" | "zh" | undefined };
          // The sample's seeding needs the World Engine and plot modules; load them only then.
          const p = o.sample
            ? await (await import("../../sample/seed.js")).createSampleProject(ws, name, opts)
            : ws.createProject(name, opts);
          writeOut(`Created project ${p.name} ("${p.meta().title}") at ${p.root}\n`);
          ws.close();
        } catch (e) {
          reportCliError(e);
        }
      },
    );
  project
    .command("list")
    .description("List the workspace's projects")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print JSON")
    .action((o: { workspace?: string; json?: boolean }) => {
      try {
        const list = Workspace.discover({ workspace: o.workspace }).listProjects();
        if (o.json) printJson(list);
        else if (!list.length) writeOut("No projects yet. Create one with `nbook project create <name>`.\n");
        else for (const p of list) writeOut(`${p.name}\t${p.title}\t${p.language}\n`);
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
}
