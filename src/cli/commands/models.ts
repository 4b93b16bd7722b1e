import type { Command } from "commander";
import { addProvider } from "../../models/config-edit.js";
import { describeModels, loadModelsConfig, type ModelsStatus, resolveModel } from "../../models/index.js";
import { apiKeyEnvOf } from "../../models/key-variables.js";
import { fromPreset, PRESET_NAMES, PRESETS, PresetOptionsSchema } from "../../models/presets.js";
import { type ProbeResult, probeModel } from "../../models/probe.js";
import { ProfileCatalog } from "../../profiles/catalog.js";
import { createToolRegistry } from "../../tools/builtin.js";
import { Workspace } from "../../workspace/workspace.js";
import { printJson, reportCliError, writeOut } from "../output.js";

/** `nbook models list`, `nbook models add <preset>`, `nbook models test <ref>`. */
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
  models
    .command("add <preset>")
    .description(
      `Add a provider from a preset to .nbook/config.json (${PRESET_NAMES.join(", ")}); its model becomes the default when none is set`,
    )
    .option("--key-env <VAR>", "environment variable holding the API key (default: the preset's)")
    .option("--base-url <URL>", "the server's URL (default: the preset's)")
    .option("--model <M>", "the model id (needed for lmstudio and vllm: the model the server has loaded)")
    .option("--id <name>", "provider id (default: the preset's name)")
    .option("--default", "make this model the default even when one is set")
    .option("--replace", "replace a provider with the same id")
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "write the project's .nbook/config.json instead")
    .option("--json", "print JSON")
    .action((preset: string, o: AddOptions) => {
      try {
        const workspace = Workspace.discover({ workspace: o.workspace });
        const project = o.project ? workspace.project(o.project) : null;
        const opts = PresetOptionsSchema.parse({
          keyEnv: o.keyEnv,
          baseUrl: o.baseUrl,
          model: o.model,
          id: o.id,
        });
        const { provider, model } = fromPreset(preset, opts);
        const added = addProvider(
          { workspaceRoot: workspace.root, projectRoot: project?.root },
          o.id ?? preset,
          provider,
          {
            model,
            makeDefault: o.default,
            replace: o.replace,
          },
        );
        const keyEnv = apiKeyEnvOf(provider);
        const keySet = keyEnv ? Boolean(process.env[keyEnv]) : null;
        const ref = model ? `${added.id}/${model}` : null;
        if (o.json) printJson({ ...added, ref, keyEnv: keyEnv ?? null, keySet });
        else
          writeOut(
            formatAdded(
              added.id,
              preset,
              added.file,
              provider.baseURL,
              keyEnv,
              keySet,
              ref,
              added.defaultModel,
            ),
          );
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
  models
    .command("test <ref>")
    .description(
      "Make one tiny call to a model (<providerId>/<modelId>): latency, streaming, tool-call support, or the error in plain words",
    )
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project (adds its .nbook/config.json override)")
    .option("--json", "print JSON")
    .action(async (ref: string, o: { workspace?: string; project?: string; json?: boolean }) => {
      try {
        const workspace = Workspace.discover({ workspace: o.workspace });
        const name = o.project ?? workspace.projectAt(process.cwd());
        const project = name ? workspace.project(name) : null;
        const config = loadModelsConfig({ workspaceRoot: workspace.root, projectRoot: project?.root });
        const resolved = resolveModel(ref, config, process.env);
        const result = await probeModel(ref, resolved.model);
        if (o.json) printJson(result);
        else writeOut(formatProbe(result));
        if (!result.ok) process.exitCode = 1;
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
}

interface AddOptions {
  keyEnv?: string;
  baseUrl?: string;
  model?: string;
  id?: string;
  default?: boolean;
  replace?: boolean;
  workspace?: string;
  project?: string;
  json?: boolean;
}

function formatAdded(
  id: string,
  preset: string,
  file: string,
  baseURL: string | undefined,
  keyEnv: string | undefined,
  keySet: boolean | null,
  ref: string | null,
  defaultModel: string | null,
): string {
  const label = PRESETS[preset as keyof typeof PRESETS].label;
  const lines = [`Added provider "${id}" (${label}) to ${file}${baseURL ? `: ${baseURL}` : ""}.`];
  if (keyEnv) {
    lines.push(
      keySet
        ? `Its key is read from ${keyEnv}, which is set.`
        : `Its key is read from ${keyEnv}, which is not set: export ${keyEnv}=<your key> in the shell that runs nbook.`,
    );
  } else lines.push("It needs no key.");
  if (ref) {
    lines.push(`Default model: ${defaultModel ?? "(none)"}.`);
    lines.push(`Check it: nbook models test ${ref}`);
  } else {
    lines.push(`Name the model the server has loaded: nbook models add ${preset} --replace --model <id>`);
  }
  return `${lines.join("\n")}\n`;
}

function formatProbe(r: ProbeResult): string {
  const ms = (n: number) => (n < 1000 ? `${n} ms` : `${(n / 1000).toFixed(1)} s`);
  const lines = [`Model ${r.ref}`];
  if (r.firstChunkMs !== null) {
    lines.push(
      `  connection  answered, first chunk after ${ms(r.firstChunkMs)}, done after ${ms(r.totalMs)}`,
    );
    lines.push(
      `  streaming   ${r.streamed ? `yes (${r.chunks} chunks)` : "no (the answer came in one piece)"}`,
    );
  }
  const tools = {
    yes: "yes (it called the test tool)",
    no: "not called: it answered in text (it may handle tools poorly)",
    unsupported: "NOT SUPPORTED: NeuroBook's agents need tool calls; choose another model",
    unknown: "unknown (the call failed)",
  }[r.toolCalls];
  lines.push(`  tool calls  ${tools}`);
  if (r.error) lines.push(`Problem: ${r.error}`);
  return `${lines.join("\n")}\n`;
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
