import { z } from "zod";
import { NbError } from "../core/errors.js";
import type { ProviderConfig } from "./config.js";

/** One preset: a provider as `nbook models add <preset>` writes it, and the model it suggests. */
interface Preset {
  label: string;
  provider: ProviderConfig;
  /** The model made the default when none is configured; absent: `--model` is needed (a local server's loaded model). */
  model?: string;
}

/**
 * The providers a novelist connects most, with their documented OpenAI-compatible or native
 * endpoints and the key variable each provider's own tools read. Local servers need no key.
 */
export const PRESETS = {
  openai: {
    label: "OpenAI",
    provider: { kind: "openai", apiKeyEnv: "OPENAI_API_KEY" },
    model: "gpt-4o-mini",
  },
  anthropic: {
    label: "Anthropic",
    provider: { kind: "anthropic", apiKeyEnv: "ANTHROPIC_API_KEY" },
    model: "claude-sonnet-4-5",
  },
  deepseek: {
    label: "DeepSeek",
    provider: {
      kind: "openai-compatible",
      baseURL: "https://api.deepseek.com/v1",
      apiKeyEnv: "DEEPSEEK_API_KEY",
    },
    model: "deepseek-chat",
  },
  qwen: {
    label: "Qwen (DashScope, OpenAI-compatible)",
    provider: {
      kind: "openai-compatible",
      baseURL: "https://dashscope.aliyuncs.com/compatible-mode/v1",
      apiKeyEnv: "DASHSCOPE_API_KEY",
    },
    model: "qwen-plus",
  },
  moonshot: {
    label: "Moonshot (Kimi)",
    provider: {
      kind: "openai-compatible",
      baseURL: "https://api.moonshot.cn/v1",
      apiKeyEnv: "MOONSHOT_API_KEY",
    },
    model: "kimi-k2-turbo-preview",
  },
  zhipu: {
    label: "Zhipu (GLM)",
    provider: {
      kind: "openai-compatible",
      baseURL: "https://open.bigmodel.cn/api/paas/v4",
      apiKeyEnv: "ZHIPUAI_API_KEY",
    },
    model: "glm-4.5",
  },
  openrouter: {
    label: "OpenRouter",
    provider: {
      kind: "openai-compatible",
      baseURL: "https://openrouter.ai/api/v1",
      apiKeyEnv: "OPENROUTER_API_KEY",
    },
    model: "openai/gpt-4o-mini",
  },
  gemini: {
    label: "Gemini (OpenAI-compatible endpoint)",
    provider: {
      kind: "openai-compatible",
      baseURL: "https://generativelanguage.googleapis.com/v1beta/openai",
      apiKeyEnv: "GEMINI_API_KEY",
      toolSchemas: "gemini",
    },
    model: "gemini-2.5-flash",
  },
  ollama: {
    label: "Ollama (local)",
    provider: { kind: "openai-compatible", baseURL: "http://127.0.0.1:11434/v1" },
    model: "qwen3:8b",
  },
  lmstudio: {
    label: "LM Studio (local)",
    provider: { kind: "openai-compatible", baseURL: "http://127.0.0.1:1234/v1" },
  },
  vllm: {
    label: "vLLM (local)",
    provider: { kind: "openai-compatible", baseURL: "http://127.0.0.1:8000/v1" },
  },
} as const satisfies Record<string, Preset>;

export type PresetName = keyof typeof PRESETS;
export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

/** What `nbook models add` is given besides the preset's name. */
export const PresetOptionsSchema = z
  .object({
    keyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name")
      .optional(),
    baseUrl: z.url().optional(),
    model: z.string().min(1).max(200).optional(),
    /** The provider id (default: the preset's name). */
    id: z.string().optional(),
  })
  .strict();
export type PresetOptions = z.infer<typeof PresetOptionsSchema>;

/** The provider and model a preset gives with these options; `invalid_input` for an unknown preset. */
export function fromPreset(name: string, opts: PresetOptions): { provider: ProviderConfig; model?: string } {
  if (!Object.hasOwn(PRESETS, name)) {
    throw new NbError("invalid_input", `Unknown preset "${name}". Presets: ${PRESET_NAMES.join(", ")}`, {
      fields: [{ pointer: "/preset", message: `one of ${PRESET_NAMES.join(", ")}` }],
    });
  }
  const preset: Preset = PRESETS[name as PresetName];
  const provider: ProviderConfig = { ...preset.provider };
  if (opts.keyEnv) provider.apiKeyEnv = opts.keyEnv;
  if (opts.baseUrl) provider.baseURL = opts.baseUrl;
  const model = opts.model ?? preset.model;
  return model ? { provider, model } : { provider };
}
