import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { readConfigFile } from "../core/config-file.js";
import { NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import { EmbeddingConfigSchema } from "./embeddings/config.js";
import { projectConfigViolations } from "./key-variables.js";
import { MODEL_REF, PROVIDER_ID } from "./reference.js";
import { TOOL_DIALECTS, type ToolDialect } from "./tool-dialect.js";

/** Per-model limits a provider may declare. */
export const ModelLimitsSchema = z
  .object({
    contextWindow: z.number().int().positive().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
  })
  .strict();

/** How long a provider may stay silent, in milliseconds (defaults in `providerTimeouts`). */
export const ProviderTimeoutsSchema = z
  .object({
    /** From sending a request to the server's first streamed chunk (connecting included). */
    firstChunkMs: z.number().int().positive().max(3_600_000).optional(),
    /** The longest silence between two chunks of a stream. */
    idleMs: z.number().int().positive().max(3_600_000).optional(),
    /** A call that is not streamed (the compaction summary), from request to the whole answer. */
    generateMs: z.number().int().positive().max(3_600_000).optional(),
  })
  .strict();

/** Header names that carry credentials; refused in config so a key never sits in a file. */
const CREDENTIAL_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "x-goog-api-key",
]);

/** True when a URL carries `user:password@` (the value itself never appears in an error). */
function hasUserInfo(url: string): boolean {
  try {
    const u = new URL(url);
    return u.username !== "" || u.password !== "";
  } catch {
    return false;
  }
}

/** The provider kinds NeuroBook can talk to. */
export const PROVIDER_KINDS = ["openai-compatible", "openai", "anthropic", "scripted"] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** One configured provider (`providers.<id>` in `.nbook/config.json`). */
export const ProviderConfigSchema = z
  .object({
    kind: z.enum(PROVIDER_KINDS),
    /** Name of the environment variable holding the API key; the key itself is never in config. */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name")
      .optional(),
    baseURL: z.url().optional(),
    /** Extra request headers; credentials are refused here (keys come only from `apiKeyEnv`). */
    headers: z.record(z.string(), z.string()).optional(),
    /** Script file of a `scripted` provider, relative to the folder holding `.nbook/`. */
    script: z.string().min(1).optional(),
    /** Known models; when present, references must name one of them. */
    models: z.record(z.string().min(1), ModelLimitsSchema).optional(),
    /** Per-provider timeouts; a `scripted` provider ignores them. */
    timeouts: ProviderTimeoutsSchema.optional(),
    /** The shape tool schemas are sent in (default by kind: `toolDialectOf`); `gemini` for Gemini's endpoint. */
    toolSchemas: z.enum(TOOL_DIALECTS).optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    for (const h of Object.keys(p.headers ?? {})) {
      if (CREDENTIAL_HEADERS.has(h.toLowerCase())) {
        ctx.addIssue({
          code: "custom",
          path: ["headers", h],
          message: "credentials belong in the environment: use apiKeyEnv",
        });
      }
    }
    if (p.baseURL && hasUserInfo(p.baseURL)) {
      ctx.addIssue({
        code: "custom",
        path: ["baseURL"],
        message: "credentials belong in the environment: use apiKeyEnv, not user:password@ in the URL",
      });
    }
    if (p.kind === "openai-compatible" && !p.baseURL) {
      ctx.addIssue({ code: "custom", path: ["baseURL"], message: "required for kind openai-compatible" });
    }
    if (p.kind === "scripted" && !p.script) {
      ctx.addIssue({ code: "custom", path: ["script"], message: "required for kind scripted" });
    }
    if (p.kind !== "scripted" && p.script !== undefined) {
      ctx.addIssue({ code: "custom", path: ["script"], message: "only allowed for kind scripted" });
    }
  });
export type ProviderConfig = z.infer<typeof ProviderConfigSchema>;

const DEFAULT_DIALECT: Record<ProviderKind, ToolDialect> = {
  openai: "openai-strict",
  anthropic: "anthropic",
  "openai-compatible": "plain",
  scripted: "plain",
};

/** How a provider is sent tools: its `toolSchemas`, else its kind's default. */
export function toolDialectOf(p: ProviderConfig): ToolDialect {
  return p.toolSchemas ?? DEFAULT_DIALECT[p.kind];
}

const modelRef = z.string().regex(MODEL_REF, "must be a model reference <providerId>/<modelId>");

/** The model-related sections of `.nbook/config.json` (other sections belong to other modules). */
export const ModelsConfigSchema = z.looseObject({
  /** A note for whoever edits the file (the starting config's how-to); JSON has no other comment. */
  "//": z.union([z.string(), z.array(z.string())]).optional(),
  providers: z.record(z.string().regex(PROVIDER_ID, "invalid provider id"), ProviderConfigSchema).default({}),
  /** Workspace only: key variables a project's providers may name beyond `<NAME>_API_KEY`. */
  allowKeyVariables: z
    .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name"))
    .optional(),
  defaultModel: modelRef.optional(),
  profiles: z.record(z.string().min(1), z.object({ model: modelRef.optional() }).strict()).default({}),
  agent: z
    .object({
      maxSteps: z.number().int().positive().max(10_000).optional(),
      /** Provider retries per model call (for retryable errors). */
      maxRetries: z.number().int().nonnegative().max(10).optional(),
      /** Background jobs running at once in one nbook process; more wait, queued. */
      maxConcurrentJobs: z.number().int().positive().max(64).optional(),
      /** Model calls in flight at once in one nbook process (every session, child and job). */
      maxConcurrentModelCalls: z.number().int().positive().max(64).optional(),
      /** Tool calls of one step that run at the same time (those that may run concurrently). */
      maxParallelToolCalls: z.number().int().positive().max(32).optional(),
      compaction: z
        .object({
          /** Compact when the estimated context exceeds this share of the model's window. */
          threshold: z.number().gt(0).lte(1).optional(),
          /** Share of the window kept verbatim after compaction. */
          keepRecent: z.number().gt(0).lt(1).optional(),
        })
        .strict()
        .optional(),
    })
    .strict()
    .default({}),
  /** The embedding model of subject memory search (see docs/memory.md); absent: keyword search only. */
  embedding: EmbeddingConfigSchema.optional(),
});
export type ModelsConfig = z.infer<typeof ModelsConfigSchema>;

/** A provider's timeouts with defaults applied. */
export type ProviderTimeouts = Required<z.infer<typeof ProviderTimeoutsSchema>>;

export const DEFAULT_PROVIDER_TIMEOUTS: ProviderTimeouts = {
  firstChunkMs: 60_000,
  idleMs: 30_000,
  generateMs: 300_000,
};

/** The timeouts of one provider, defaults filled in. */
export function providerTimeouts(p: ProviderConfig): ProviderTimeouts {
  return { ...DEFAULT_PROVIDER_TIMEOUTS, ...p.timeouts };
}

/** Agent settings with defaults applied. */
export interface AgentSettings {
  maxSteps: number;
  maxRetries: number;
  compactionThreshold: number;
  compactionKeepRecent: number;
  maxConcurrentJobs: number;
  maxConcurrentModelCalls: number;
  maxParallelToolCalls: number;
}

export const DEFAULT_MAX_STEPS = 50;
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_COMPACTION_THRESHOLD = 0.8;
export const DEFAULT_COMPACTION_KEEP_RECENT = 0.3;
export const DEFAULT_MAX_CONCURRENT_JOBS = 4;
export const DEFAULT_MAX_CONCURRENT_MODEL_CALLS = 8;
export const DEFAULT_MAX_PARALLEL_TOOL_CALLS = 4;

/** The loop's settings from config, defaults filled in. */
export function agentSettings(config: ModelsConfig): AgentSettings {
  return {
    maxSteps: config.agent.maxSteps ?? DEFAULT_MAX_STEPS,
    maxRetries: config.agent.maxRetries ?? DEFAULT_MAX_RETRIES,
    compactionThreshold: config.agent.compaction?.threshold ?? DEFAULT_COMPACTION_THRESHOLD,
    compactionKeepRecent: config.agent.compaction?.keepRecent ?? DEFAULT_COMPACTION_KEEP_RECENT,
    maxConcurrentJobs: config.agent.maxConcurrentJobs ?? DEFAULT_MAX_CONCURRENT_JOBS,
    maxConcurrentModelCalls: config.agent.maxConcurrentModelCalls ?? DEFAULT_MAX_CONCURRENT_MODEL_CALLS,
    maxParallelToolCalls: config.agent.maxParallelToolCalls ?? DEFAULT_MAX_PARALLEL_TOOL_CALLS,
  };
}

/**
 * Validate one raw config object; `source` names the file in error messages. Relative `script`
 * paths are made absolute against `baseDir` (the folder holding `.nbook/`).
 */
export function parseModelsConfig(raw: unknown, source: string, baseDir?: string): ModelsConfig {
  const r = ModelsConfigSchema.safeParse(raw ?? {});
  if (!r.success) {
    const fields = zodFieldErrors(r.error);
    throw new NbError("config_error", `Invalid ${source}:\n${formatFieldErrors(fields)}`, { fields });
  }
  const config = r.data;
  if (baseDir) {
    for (const p of Object.values(config.providers)) {
      if (p.script && !isAbsolute(p.script)) p.script = resolve(baseDir, p.script);
    }
    const e = config.embedding;
    if (e?.folder && !isAbsolute(e.folder)) e.folder = resolve(baseDir, e.folder);
  }
  return config;
}

/**
 * Layer a project config over the workspace config: a provider with the same id is replaced
 * whole (a provider is one unit; mixing kinds across files would be confusing), profile entries
 * and agent settings merge key by key, and `defaultModel` and `embedding` (whole) are overridden when the
 * project sets them.
 * A project may not redirect a workspace provider or its key (`projectConfigViolations`):
 * `config_error` naming each field, with `label` naming the project's file.
 */
export function mergeModelsConfig(
  base: ModelsConfig,
  over: ModelsConfig,
  label = "project .nbook/config.json",
): ModelsConfig {
  const fields = projectConfigViolations(base, over);
  if (fields.length) {
    throw new NbError("config_error", `Invalid ${label}:\n${formatFieldErrors(fields)}`, { fields });
  }
  const profiles: ModelsConfig["profiles"] = { ...base.profiles };
  for (const [k, v] of Object.entries(over.profiles)) profiles[k] = { ...profiles[k], ...v };
  return {
    ...base,
    ...over,
    providers: { ...base.providers, ...over.providers },
    allowKeyVariables: base.allowKeyVariables,
    defaultModel: over.defaultModel ?? base.defaultModel,
    embedding: over.embedding ?? base.embedding,
    profiles,
    agent: {
      ...base.agent,
      ...over.agent,
      compaction: { ...base.agent.compaction, ...over.agent.compaction },
    },
  };
}

/** Where the two config layers live. */
export interface ConfigRoots {
  /** Workspace root (holds `.nbook/config.json`). */
  workspaceRoot: string;
  /** Project root, when a project's `.nbook/config.json` may override. */
  projectRoot?: string | null;
}

/** Load and validate the effective models config: workspace config, then the project's override. */
export function loadModelsConfig(roots: ConfigRoots): ModelsConfig {
  const base = parseModelsConfig(
    readConfigFile(join(roots.workspaceRoot, ".nbook", "config.json"), ".nbook/config.json"),
    ".nbook/config.json",
    roots.workspaceRoot,
  );
  if (!roots.projectRoot) return base;
  const file = join(roots.projectRoot, ".nbook", "config.json");
  if (!existsSync(file)) return base;
  const label = "project .nbook/config.json";
  return mergeModelsConfig(
    base,
    parseModelsConfig(readConfigFile(file, label), label, roots.projectRoot),
    label,
  );
}

/**
 * A stamp of the config files behind `roots` (size and modification time of each, or their absence):
 * it changes when either file is written, so a long-running process knows to read them again.
 */
export function configStamp(roots: ConfigRoots): string {
  const files = [join(roots.workspaceRoot, ".nbook", "config.json")];
  if (roots.projectRoot) files.push(join(roots.projectRoot, ".nbook", "config.json"));
  return files
    .map((f) => {
      try {
        const st = statSync(f);
        return `${st.ino}:${st.size}:${st.mtimeMs}`;
      } catch {
        return "-";
      }
    })
    .join("|");
}
