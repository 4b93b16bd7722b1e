import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import type { Allowlist } from "../../tools/dispatch.js";
import { groupOfKey, loadToolRegistry } from "../../tools/groups.js";
import { parseMode, readJsonArgument } from "../input.js";
import { locateProject } from "../locate.js";
import { printJson, reportCliError, writeOut } from "../output.js";
import { runCliToolCall } from "../tool-call.js";

interface ToolOptions {
  input?: string;
  workspace?: string;
  project?: string;
  profile?: string;
  mode: string;
  approve?: boolean;
  json?: boolean;
  list?: boolean;
}

/** `nbook tool <key> --input …`: run one tool through the same dispatch every door uses. */
export function registerTool(program: Command): void {
  program
    .command("tool")
    .description("Run one tool through the full dispatch (validation, allowlist, mode gate), or list tools")
    .argument("[key]", "tool key, e.g. read")
    .option("--input <json>", "the tool input as JSON, or @file.json")
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "current project (default: the project folder you are in)")
    .option("--profile <key>", "run as this profile (its allowlist applies); default: every tool allowed")
    .option("--mode <mode>", "normal, discuss or plan", "normal")
    .option("--approve", "approve this one call if the mode gate would stop it")
    .option("--json", "print exactly one JSON object")
    .option("--list", "list the tools with their group and effect")
    .action(async (key: string | undefined, o: ToolOptions) => {
      try {
        if (o.list) {
          // Listing needs no workspace: the tools are the same everywhere.
          const { createToolRegistry } = await import("../../tools/builtin.js");
          const rows = createToolRegistry()
            .list()
            .map((t) => ({
              key: t.key,
              group: t.group,
              effect: t.effect === "per-call" ? "per call" : t.effect,
            }));
          if (o.json) printJson(rows);
          else for (const r of rows) writeOut(`${r.key.padEnd(28)}${r.group.padEnd(15)}${r.effect}\n`);
          return;
        }
        if (!key) throw new NbError("invalid_input", "Name a tool (nbook tool <key>) or pass --list");
        const mode = parseMode(o.mode);
        const input = o.input === undefined ? {} : readJsonArgument("--input", o.input);
        const { workspace, project } = locateProject(o);
        if (!groupOfKey(key)) {
          throw new NbError("not_found", `Unknown tool: ${key}. List the tools with \`nbook tool --list\`.`);
        }
        // Only the called tool's group is loaded: `tool read` never loads QuickJS or the World Engine.
        const registry = await loadToolRegistry([key]);
        // The profiles are read only when a profile's allowlist applies; the user may call any tool.
        let allow: Allowlist = "all";
        if (o.profile) {
          const { ProfileCatalog } = await import("../../profiles/catalog.js");
          allow = new ProfileCatalog(registry, workspace, project).allowlist(o.profile);
        }
        await runCliToolCall(
          { workspace, project, registry },
          { key, input },
          { mode, approved: o.approve === true, profileKey: o.profile, allow, json: o.json },
        );
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
}
