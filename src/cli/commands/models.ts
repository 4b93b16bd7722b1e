import type { Command } from "commander";
import { describeModels, loadModelsConfig, type ModelsStatus } from "../../models/index.js";
import { ProfileCatalog } from "../../profiles/catalog.js";
import { createToolRegistry } from "../../tools/builtin.js";
import { Workspace } from "../../workspace/workspace.js";
import { printJson, reportCliError, writeOut } from "../output.js";

/** `nbook models list`. */
export function registerModels(program: Command): void {
  const models = program.command("models").description("Model providers and models from .nbook/config.json");
  models
    .command("list", { isDefault: true })
    .description(
      "List configured providers and models, which API-key variables are missing, and each profile's model",
    )
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project (adds its .nbook/config.json override)")
    .option("--json", "print JSON")
    .action((o: { workspace?: string; project?: string; json?: boolean }) => {
      try {
        const workspace = Workspace.discover({ workspace: o.workspace });
        const name = o.project ?? workspace.projectAt(process.cwd());
        const project = name ? workspace.project(name) : null;
        const config = loadModelsConfig({ workspaceRoot: workspace.root, projectRoot: project?.root });
        const catalog = new ProfileCatalog(createToolRegistry(), workspace, project);
        const status = describeModels(config, process.env, {
          workspaceRoot: workspace.root,
          profiles: catalog.list().filter((p) => p.creation === "public"),
        });
        if (o.json) printJson(status);
        else writeOut(formatStatus(status));
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
}

function formatStatus(s: ModelsStatus): string {
  const lines: string[] = [];
  if (s.providers.length === 0) {
    lines.push('No providers configured. Add one under "providers" in .nbook/config.json, e.g.');
    lines.push(
      '  "providers": { "local": { "kind": "openai-compatible", "baseURL": "http://127.0.0.1:11434/v1" } },',
    );
    lines.push('  "defaultModel": "local/qwen3:8b"');
    lines.push(
      "or run offline with a scripted model: nbook run --script <file> (see docs/scripted-model.md).",
    );
  } else {
    lines.push("Providers:");
    for (const p of s.providers) {
      const where = p.baseURL ?? p.script ?? "";
      const key =
        p.key === "not_needed"
          ? "no key needed"
          : `key ${p.apiKeyEnv} ${p.key === "set" ? "set" : "MISSING"}`;
      lines.push(`  ${p.id.padEnd(16)}${p.kind.padEnd(19)}${key}${where ? `  ${where}` : ""}`);
      for (const m of p.models) {
        const out = m.maxOutputTokens ? `, max output ${m.maxOutputTokens}` : "";
        lines.push(`    ${m.ref}  (context ${m.contextWindow}${out})`);
      }
    }
  }
  lines.push(`Default model: ${s.defaultModel ?? "(none)"}`);
  if (s.profiles.length) {
    lines.push("Profiles:");
    for (const p of s.profiles) {
      lines.push(
        `  ${p.profile.padEnd(18)}${p.ref ? `${p.ref}  (${p.source})` : "(no model: pass --model or set defaultModel)"}`,
      );
    }
  }
  if (s.missingEnv.length) lines.push(`Missing environment variables: ${s.missingEnv.join(", ")}`);
  for (const problem of s.problems) lines.push(`Problem: ${problem}`);
  return `${lines.join("\n")}\n`;
}
