import { createRequire } from "node:module";

/**
 * How the tokens of a model's input are counted: the model family's own tokenizer where
 * gpt-tokenizer has it (o200k for GPT-4o and later OpenAI models, cl100k for GPT-4 / GPT-3.5);
 * any other model is counted with o200k and labelled an estimate.
 */
export type Tokenizer = "o200k" | "cl100k" | "estimate (o200k)";

export interface TokenCounter {
  tokenizer: Tokenizer;
  count(text: string): number;
}

// Text from a model, a file or a page may hold special-token markers: they count as plain text.
const PLAIN = { disallowedSpecial: new Set<string>() };

type Count = (text: string, opts: typeof PLAIN) => number;

// The encodings' tables take ~70 ms to load each: loaded on the first count, not with every command.
const require = createRequire(import.meta.url);
function lazy(encoding: string): (text: string) => number {
  let count: Count | undefined;
  return (text) => {
    if (!text) return 0;
    count ??= (require(`gpt-tokenizer/cjs/encoding/${encoding}`) as { countTokens: Count }).countTokens;
    return count(text, PLAIN);
  };
}

const O200K: TokenCounter = { tokenizer: "o200k", count: lazy("o200k_base") };
const CL100K: TokenCounter = { tokenizer: "cl100k", count: lazy("cl100k_base") };
const ESTIMATE: TokenCounter = { tokenizer: "estimate (o200k)", count: O200K.count };

/** The counter for a model reference `<providerId>/<modelId>`, by its model id. */
export function tokenCounter(modelRef: string): TokenCounter {
  const id = (modelRef.split("/").slice(1).join("/") || modelRef).toLowerCase().replace(/^openai\//, "");
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o|gpt-oss)/.test(id)) return O200K;
  if (/^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada)/.test(id)) return CL100K;
  return ESTIMATE;
}
