import { join } from "node:path";
import { writeFileAtomicSync } from "../core/atomic-write.js";
import { readConfigFile } from "../core/config-file.js";
import { NbError } from "../core/errors.js";
import {
  type ConfigRoots,
  loadModelsConfig,
  mergeModelsConfig,
  type ProviderConfig,
  parseModelsConfig,
} from "./config.js";
import { PROVIDER_ID } from "./reference.js";

/** What adding a provider changed. */
export interface ProviderAdded {
  /** Which config file was written (".nbook/config.json" or "project .nbook/config.json"). */
  file: string;
  id: string;
  provider: ProviderConfig;
  /** The config's default model after the change (null when none is set). */
  defaultModel: string | null;
}

/**
 * Add a provider to the workspace's `.nbook/config.json` (the project's, when `roots.projectRoot`
 * is set), keeping every other section as it was. The model becomes the default when none is set
 * or `makeDefault` asks. The result is validated as a whole (and, for a project, over the workspace's
 * config) before it is written atomically; an existing id is replaced only with `replace`.
 */
export function addProvider(
  roots: ConfigRoots,
  id: string,
  provider: ProviderConfig,
  opts: { model?: string; makeDefault?: boolean; replace?: boolean } = {},
): ProviderAdded {
  if (!PROVIDER_ID.test(id)) {
    throw new NbError("invalid_input", `Invalid provider id "${id}": letters, digits, . _ - (at most 64)`, {
      fields: [{ pointer: "/id", message: "invalid provider id" }],
    });
  }
  const root = roots.projectRoot ?? roots.workspaceRoot;
  const label = roots.projectRoot ? "project .nbook/config.json" : ".nbook/config.json";
  const file = join(root, ".nbook", "config.json");
  const raw = readConfigFile(file, label);
  const providers = (raw.providers ?? {}) as Record<string, unknown>;
  if (Object.hasOwn(providers, id) && !opts.replace) {
    throw new NbError(
      "conflict",
      `Provider "${id}" is already in ${label}: pass --replace to overwrite it, or --id <name> to add another`,
    );
  }
  const next: Record<string, unknown> = { ...raw, providers: { ...providers, [id]: provider } };
  if (opts.model && (opts.makeDefault || !raw.defaultModel)) next.defaultModel = `${id}/${opts.model}`;
  const parsed = parseModelsConfig(next, label, root);
  // A project's edit must also hold over the workspace config (a key variable it may not send, say).
  if (roots.projectRoot)
    mergeModelsConfig(loadModelsConfig({ workspaceRoot: roots.workspaceRoot }), parsed, label);
  writeFileAtomicSync(file, `${JSON.stringify(next, null, 2)}\n`);
  return {
    file: label,
    id,
    provider,
    defaultModel: parsed.defaultModel ?? null,
  };
}
