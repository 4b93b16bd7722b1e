import { join } from "node:path";
import { z } from "zod";
import { readConfigFile } from "../core/config-file.js";
import { NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";

export const CURRENCIES = ["USD", "CNY"] as const;
export const CurrencySchema = z.enum(CURRENCIES);
export type Currency = z.infer<typeof CurrencySchema>;

const PerMillion = z.number().min(0).max(100_000);

/** One model's prices per million tokens; cache prices default to the input price. */
export const PriceEntrySchema = z
  .object({
    currency: CurrencySchema,
    input: PerMillion,
    output: PerMillion,
    cacheRead: PerMillion.optional(),
    cacheWrite: PerMillion.optional(),
    /** When these prices were read off the provider's page (YYYY-MM-DD). */
    asOf: z.iso.date().optional(),
  })
  .strict();
export type PriceEntry = z.infer<typeof PriceEntrySchema>;

/**
 * Prices of well-known models as their providers listed them on the date given, by model id
 * (a longer id such as `gpt-4o-mini-2024-07-18` takes its prefix's prices). They go stale:
 * `prices` in `.nbook/config.json` wins for any model it names.
 */
export const DEFAULT_PRICES: Readonly<Record<string, PriceEntry>> = {
  "gpt-4o": { currency: "USD", input: 2.5, output: 10, cacheRead: 1.25, asOf: "2025-06-01" },
  "gpt-4o-mini": { currency: "USD", input: 0.15, output: 0.6, cacheRead: 0.075, asOf: "2025-06-01" },
  "gpt-4.1": { currency: "USD", input: 2, output: 8, cacheRead: 0.5, asOf: "2025-06-01" },
  "gpt-4.1-mini": { currency: "USD", input: 0.4, output: 1.6, cacheRead: 0.1, asOf: "2025-06-01" },
  "gpt-4.1-nano": { currency: "USD", input: 0.1, output: 0.4, cacheRead: 0.025, asOf: "2025-06-01" },
  "claude-sonnet-4": {
    currency: "USD",
    input: 3,
    output: 15,
    cacheRead: 0.3,
    cacheWrite: 3.75,
    asOf: "2025-06-01",
  },
  "claude-opus-4": {
    currency: "USD",
    input: 15,
    output: 75,
    cacheRead: 1.5,
    cacheWrite: 18.75,
    asOf: "2025-06-01",
  },
  "claude-3-5-haiku": {
    currency: "USD",
    input: 0.8,
    output: 4,
    cacheRead: 0.08,
    cacheWrite: 1,
    asOf: "2025-06-01",
  },
  "deepseek-chat": { currency: "CNY", input: 2, output: 3, cacheRead: 0.2, asOf: "2025-10-01" },
  "deepseek-reasoner": { currency: "CNY", input: 2, output: 3, cacheRead: 0.2, asOf: "2025-10-01" },
  "qwen-plus": { currency: "CNY", input: 0.8, output: 2, asOf: "2025-06-01" },
};

/** Tokens of one call as the provider reported them. `inputTokens` counts cache reads and writes too. */
export const UsageSchema = z
  .object({
    inputTokens: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    cacheReadTokens: z.number().int().nonnegative(),
    cacheWriteTokens: z.number().int().nonnegative(),
  })
  .strict();
export type Usage = z.infer<typeof UsageSchema>;

/** A price table: the user's entries by model reference or model id, over the defaults. */
export type PriceTable = Readonly<Record<string, PriceEntry>>;

function modelIdOf(ref: string): string {
  const slash = ref.indexOf("/");
  return slash < 0 ? ref : ref.slice(slash + 1);
}

/** The price of `modelRef`: the user's entry for the reference, then for its model id, then the defaults (longest prefix). */
export function priceOf(
  table: PriceTable,
  modelRef: string,
): (PriceEntry & { source: "config" | "default" }) | null {
  const id = modelIdOf(modelRef);
  const own = table[modelRef] ?? table[id];
  if (own) return { ...own, source: "config" };
  let best: string | null = null;
  for (const k of Object.keys(DEFAULT_PRICES)) {
    if ((id === k || id.startsWith(`${k}-`)) && (!best || k.length > best.length)) best = k;
  }
  return best ? { ...DEFAULT_PRICES[best], source: "default" } : null;
}

/** What a call cost in its price's currency; null when the model has no price. */
export function costOf(price: PriceEntry | null, u: Usage): { amount: number; currency: Currency } | null {
  if (!price) return null;
  const fresh = Math.max(0, u.inputTokens - u.cacheReadTokens - u.cacheWriteTokens);
  const amount =
    (fresh * price.input +
      u.cacheReadTokens * (price.cacheRead ?? price.input) +
      u.cacheWriteTokens * (price.cacheWrite ?? price.input) +
      u.outputTokens * price.output) /
    1_000_000;
  return { amount, currency: price.currency };
}

const PricesSchema = z.record(z.string().min(1).max(300), PriceEntrySchema);

function parsePrices(raw: unknown, label: string): PriceTable {
  const r = PricesSchema.safeParse(raw ?? {});
  if (r.success) return r.data;
  const fields = zodFieldErrors(r.error, ["prices"]);
  throw new NbError("config_error", `Invalid ${label}:\n${formatFieldErrors(fields)}`, { fields });
}

/** The `prices` of the workspace's and the project's `.nbook/config.json` (the project's entries win). */
export function loadPriceTable(workspaceRoot: string, projectRoot: string | null): PriceTable {
  const label = ".nbook/config.json";
  const base = parsePrices(readConfigFile(join(workspaceRoot, ".nbook", "config.json"), label).prices, label);
  if (!projectRoot) return base;
  const plabel = "project .nbook/config.json";
  return {
    ...base,
    ...parsePrices(readConfigFile(join(projectRoot, ".nbook", "config.json"), plabel).prices, plabel),
  };
}
