import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import { type Allowlist, dispatch } from "../../tools/dispatch.js";
import { MODES, type Mode } from "../../tools/types.js";
import { openCliContext } from "../context.js";
import { EXIT, printJson, reportCliError } from "../output.js";

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

function readInput(raw: string | undefined): unknown {
  if (raw === undefined) return {};
  const text = raw.startsWith("@") ? readFileSync(raw.slice(1), "utf8") : raw;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new NbError("invalid_input", `--input is not valid JSON: ${(e as Error).message}`);
  }
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
          const ctx = openCliContext(o);
          const rows = ctx.registry.list().map((t) => ({
            key: t.key,
            group: t.group,
            effect: typeof t.effect === "function" ? "per call" : t.effect,
          }));
          if (o.json) printJson(rows);
          else
            for (const r of rows)
              process.stdout.write(`${r.key.padEnd(28)}${r.group.padEnd(15)}${r.effect}\n`);
          return;
        }
        if (!key) throw new NbError("invalid_input", "Name a tool (nbook tool <key>) or pass --list");
        if (!MODES.includes(o.mode as Mode))
          throw new NbError("invalid_input", `--mode must be one of ${MODES.join(", ")}`);
        const input = readInput(o.input);
        const ctx = openCliContext(o);
        let allow: Allowlist = "all";
        if (o.profile) allow = ctx.catalog.allowlist(o.profile);
        const result = await dispatch(
          { key, input },
          {
            registry: ctx.registry,
            workspace: ctx.workspace,
            project: ctx.project,
            mode: o.mode as Mode,
            profileKey: o.profile ?? null,
            allow,
            approved: o.approve === true,
          },
        );
        if (o.json) printJson(result);
        else if (result.ok) process.stdout.write(`${result.text}\n`);
        else process.stderr.write(`error [${result.error.code}]: ${result.error.message}\n`);
        process.exitCode = result.ok ? EXIT.ok : EXIT.toolError;
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
}
