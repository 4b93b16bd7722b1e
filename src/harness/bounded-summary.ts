import { NbError } from "../core/errors.js";

/** The summariser model's limits: its context window and its output cap (absent: the provider's). */
export interface SummaryWindow {
  contextWindow: number;
  maxOutputTokens?: number;
}

/** One summarisation request: system prompt, user prompt, and the output cap sent with it. */
export interface SummaryRequest {
  system: string;
  prompt: string;
  maxOutputTokens: number;
}

/** The output cap of a summary when the model names none: enough for a dense page. */
const DEFAULT_SUMMARY_TOKENS = 4096;
/** Tokens a request costs beyond its text (roles, message framing). */
const FRAMING_TOKENS = 32;

/**
 * Tokens a text may cost, on the safe side: three ASCII characters a token (prose runs nearer four,
 * JSON and numbers nearer three), every other character (CJK, accents) a token of its own.
 */
export function textTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) < 128) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 3) + other + 1;
}

/** The tokens one request may take in (window minus output cap) and the output cap it sends. */
export function summaryBudget(window: SummaryWindow): { input: number; output: number } {
  // The output cap may not eat the window: a quarter at most, so a merge can take several parts.
  const output = Math.max(
    1,
    Math.min(window.maxOutputTokens ?? DEFAULT_SUMMARY_TOKENS, Math.floor(window.contextWindow / 4)),
  );
  return { input: window.contextWindow - output, output };
}

function requestTokens(r: Omit<SummaryRequest, "maxOutputTokens">): number {
  return textTokens(r.system) + textTokens(r.prompt) + FRAMING_TOKENS;
}

/** Cut a line to at most `budget` tokens (a line longer than a whole request). */
function clipLine(line: string, budget: number): string {
  if (textTokens(line) <= budget) return line;
  let lo = 0;
  let hi = line.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (textTokens(`${line.slice(0, mid)}… [cut]`) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return `${line.slice(0, lo)}… [cut]`;
}

/** Consecutive lines packed into texts of at most `budget` tokens each, in order. */
export function packLines(lines: readonly string[], budget: number): string[] {
  const out: string[] = [];
  let chunk: string[] = [];
  let size = 0;
  for (const raw of lines) {
    const line = clipLine(raw, budget);
    const t = textTokens(line) + 1;
    if (chunk.length && size + t > budget) {
      out.push(chunk.join("\n"));
      chunk = [];
      size = 0;
    }
    chunk.push(line);
    size += t;
  }
  if (chunk.length) out.push(chunk.join("\n"));
  return out;
}

const ANSWER = "\n\nAnswer with the summary only, as plain text.";
const PART =
  "\n\nThis is one part of a longer conversation; summarise this part only, keeping what later parts may need.";
const MERGE =
  "\n\nYou are given summaries of consecutive parts of one conversation, oldest first. Merge them into one summary of the whole: keep every decision, fact, file and open question; drop repeats.";

/**
 * Summarise a transcript (one line per message) in requests that each fit the window: one request
 * when it all fits; else each part alone, then the partial summaries merged (in rounds, when even
 * they do not fit one request). `ask` sends one request and answers its text; every request is
 * checked against the budget before it is sent.
 */
export async function summarizeInBounds(opts: {
  system: string;
  previousSummary: string | null;
  lines: readonly string[];
  window: SummaryWindow;
  ask: (request: SummaryRequest) => Promise<string>;
}): Promise<string> {
  const { input, output } = summaryBudget(opts.window);
  const send = async (system: string, prompt: string): Promise<string> => {
    if (requestTokens({ system, prompt }) > input) {
      throw new NbError("internal", "A summary request would not fit the summariser's window");
    }
    const text = (await opts.ask({ system, prompt, maxOutputTokens: output })).trim();
    if (!text) throw new NbError("internal", "The summarizer returned an empty summary");
    return text;
  };
  const prior = opts.previousSummary ? `Summary so far:\n${opts.previousSummary}\n\n` : "";
  const whole = `${prior}Conversation to summarise:\n${opts.lines.join("\n")}`;
  if (requestTokens({ system: opts.system + ANSWER, prompt: whole }) <= input) {
    return send(opts.system + ANSWER, whole);
  }
  const room = (system: string, head: string) => input - requestTokens({ system, prompt: head });
  const partSystem = opts.system + PART + ANSWER;
  const partHead = "Conversation to summarise (one part):\n";
  const mergeSystem = opts.system + MERGE + ANSWER;
  // A merge must take at least two summaries of `output` tokens, or the rounds would never end.
  if (room(partSystem, partHead) < 1 || room(mergeSystem, "") < 2 * (output + 8)) {
    throw new NbError(
      "config_error",
      `The summariser's context window (${opts.window.contextWindow} tokens) is too small to summarise in parts`,
    );
  }
  const parts = packLines(opts.lines, room(partSystem, partHead));
  let summaries = await Promise.all(parts.map((p) => send(partSystem, partHead + p)));
  if (opts.previousSummary) summaries.unshift(opts.previousSummary);
  while (summaries.length > 1) {
    const labelled = summaries.map((s, i) => `--- Part ${i + 1} ---\n${s}`);
    const groups = packLines(labelled, room(mergeSystem, ""));
    if (groups.length === summaries.length) {
      throw new NbError("internal", "The partial summaries are too long to merge within the window");
    }
    summaries = await Promise.all(groups.map((g) => send(mergeSystem, g)));
  }
  return summaries[0];
}
