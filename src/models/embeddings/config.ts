import { z } from "zod";

/** Keys people bring from other tools' embedding settings, and what to use instead. */
const MISPLACED: Record<string, string> = {
  apiKey:
    "credentials belong in the environment: name a provider (providers.<id>, with apiKeyEnv) in embedding.provider",
  baseURL:
    "the URL belongs to the provider: name a provider (providers.<id>, with baseURL) in embedding.provider",
};

const FIELDS = {
  /** A configured provider (`providers.<id>`) of kind openai or openai-compatible. */
  provider: z.string().min(1).optional(),
  /** The embedding model's id at that provider. */
  model: z.string().min(1).optional(),
  /** A local model folder (config.json, tokenizer.json, onnx/model.onnx), relative to the folder holding `.nbook/`. */
  folder: z.string().min(1).optional(),
  /** The length of every vector; a model answering with another length is an error. */
  dimensions: z.number().int().positive().max(16_384),
  /** How a local model's token vectors become one (default mean). */
  pooling: z.enum(["mean", "cls"]).optional(),
  /** Texts per request (default 64). */
  batchSize: z.number().int().positive().max(2048).optional(),
  /** The time limit of one request (a batch) in milliseconds, its retries included (default 30,000). */
  timeoutMs: z.number().int().positive().max(600_000).optional(),
  /** Retries of a failed request (default 2). */
  maxRetries: z.number().int().nonnegative().max(10).optional(),
  /** Put before a query / a stored text when embedding it (E5-style models want "query: " and "passage: "). */
  queryPrefix: z.string().optional(),
  documentPrefix: z.string().optional(),
};

/**
 * The `embedding` section of `.nbook/config.json`: either an API model (`provider` + `model`) or a
 * local model folder (`folder`), and the vectors' `dimensions`. No key is ever stored here.
 */
export const EmbeddingConfigSchema = z.looseObject(FIELDS).superRefine((c, ctx) => {
  for (const k of Object.keys(c)) {
    if (!(k in FIELDS)) ctx.addIssue({ code: "custom", path: [k], message: MISPLACED[k] ?? "unknown key" });
  }
  if (c.folder !== undefined) {
    for (const k of ["provider", "model"] as const) {
      if (c[k] !== undefined) ctx.addIssue({ code: "custom", path: [k], message: "not allowed with folder" });
    }
  } else {
    if (c.provider === undefined)
      ctx.addIssue({ code: "custom", path: ["provider"], message: "required (or set folder)" });
    if (c.model === undefined)
      ctx.addIssue({ code: "custom", path: ["model"], message: "required with provider" });
    if (c.pooling !== undefined)
      ctx.addIssue({ code: "custom", path: ["pooling"], message: "only allowed with folder" });
  }
});
export type EmbeddingConfig = z.infer<typeof EmbeddingConfigSchema>;
