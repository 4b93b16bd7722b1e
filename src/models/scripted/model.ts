import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3Content,
  type LanguageModelV3FinishReason,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3StreamPart,
  type LanguageModelV3StreamResult,
  type LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { NbError } from "../../core/errors.js";
import {
  type ParsedScript,
  type ParsedTurn,
  parseScript,
  readScriptFile,
  type ScriptedTurn,
  type ScriptFile,
} from "./format.js";
import { checkExpectations, promptChars } from "./inspect.js";

/** Options of a scripted model. */
export interface ScriptedModelOptions {
  /** Model id reported to the AI SDK (default: the script's `model`, else `script`). */
  modelId?: string;
  /**
   * Index of the first turn to replay, to resume a conversation in a new process; in a script with
   * sections it applies to the section of the first call. `"history"`: the first call starts at the
   * number of assistant messages in its prompt (exact when every earlier turn left an assistant
   * message: no error-only turns, no compaction calls). A function: the first call's caller says
   * (a server that learns which session continues only when it calls).
   */
  startAt?: number | "history" | ((caller: ScriptCaller) => number);
}

/** Who makes a call, for a script with turns keyed by profile or session. */
export interface ScriptCaller {
  sessionId?: string;
  profileKey?: string;
}

/** One sequence of turns with its own place: the top-level turns, or one profile's or session's. */
interface Section {
  /** Where it is in the script, for messages: `turns`, `profiles.writer`, `sessions.2`. */
  name: string;
  turns: ParsedTurn[];
  /** Next turn; null until the section's first call decides where it starts. */
  cursor: number | null;
}

/**
 * A real AI SDK `LanguageModelV3` that answers each call with the next turn of a script: text
 * (optionally in chunks), tool calls, usage, or a simulated provider error. Deterministic and
 * offline; a call past the last turn fails with `limit_exceeded`. A script may key turns by profile
 * or session: `forCaller` gives the view one session calls, and each section keeps its own place.
 */
export class ScriptedLanguageModel implements LanguageModelV3 {
  readonly specificationVersion = "v3" as const;
  readonly provider = "scripted";
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  /** Every call's options, in order (for tests that assert what the model saw). */
  readonly calls: LanguageModelV3CallOptions[] = [];
  private readonly main: Section | null;
  private readonly byProfile = new Map<string, Section>();
  private readonly bySession = new Map<string, Section>();
  private readonly keyed: boolean;
  private readonly views = new Map<string, LanguageModelV3>();
  /** Where the first call's section starts; consumed by that call. */
  private firstStart: NonNullable<ScriptedModelOptions["startAt"]> | null;

  constructor(script: ParsedScript, opts: ScriptedModelOptions = {}) {
    this.modelId = opts.modelId ?? script.model ?? "script";
    this.main = script.turns ? { name: "turns", turns: script.turns, cursor: null } : null;
    for (const [key, turns] of Object.entries(script.profiles ?? {}))
      this.byProfile.set(key, { name: `profiles.${key}`, turns, cursor: null });
    for (const [id, turns] of Object.entries(script.sessions ?? {}))
      this.bySession.set(id, { name: `sessions.${id}`, turns, cursor: null });
    this.keyed = this.byProfile.size + this.bySession.size > 0;
    const start = opts.startAt ?? 0;
    const max = this.keyed ? Number.POSITIVE_INFINITY : (this.main?.turns.length ?? 0);
    if (typeof start === "number" && (!Number.isInteger(start) || start < 0 || start > max)) {
      throw new NbError(
        "invalid_input",
        this.keyed ? "startAt must be an integer from 0" : `startAt must be an integer from 0 to ${max}`,
      );
    }
    this.firstStart = start;
    if (this.main && !this.keyed && typeof start === "number") this.main.cursor = start;
  }

  /** Index of the next top-level turn (0 before the first call). */
  get position(): number {
    return this.main?.cursor ?? 0;
  }

  /** Turns not replayed yet, in every section. */
  get remaining(): number {
    let n = 0;
    for (const s of this.sections()) n += s.turns.length - (s.cursor ?? 0);
    return n;
  }

  /**
   * The model as one session calls it: its turns come from the section matching the caller. The same
   * caller always gets the same object.
   */
  forCaller(caller: ScriptCaller): LanguageModelV3 {
    const key = `${caller.sessionId ?? ""}\n${caller.profileKey ?? ""}`;
    let view = this.views.get(key);
    if (!view) {
      const who = { ...caller };
      view = {
        specificationVersion: "v3",
        provider: this.provider,
        modelId: this.modelId,
        supportedUrls: this.supportedUrls,
        doGenerate: (options) => this.generate(options, who),
        doStream: (options) => this.stream(options, who),
      };
      this.views.set(key, view);
    }
    return view;
  }

  doGenerate(options: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    return this.generate(options, {});
  }

  doStream(options: LanguageModelV3CallOptions): Promise<LanguageModelV3StreamResult> {
    return this.stream(options, {});
  }

  private async generate(
    options: LanguageModelV3CallOptions,
    caller: ScriptCaller,
  ): Promise<LanguageModelV3GenerateResult> {
    const { turn, index } = this.take(options, caller);
    if (turn.waitForAbort) await waitForAbort(options.abortSignal, index);
    if (turn.error) throw providerError(turn.error, this.modelId);
    const content: LanguageModelV3Content[] = [];
    const text = textOf(turn);
    if (text) content.push({ type: "text", text });
    for (const [i, call] of (turn.toolCalls ?? []).entries()) {
      content.push({
        type: "tool-call",
        toolCallId: call.id ?? callId(index, i),
        toolName: call.name,
        input: JSON.stringify(call.input),
      });
    }
    return {
      content,
      finishReason: finishReason(turn),
      usage: usageOf(turn, options),
      response: { id: `scripted-${index}`, modelId: this.modelId, timestamp: new Date(0) },
      warnings: [],
    };
  }

  private async stream(
    options: LanguageModelV3CallOptions,
    caller: ScriptCaller,
  ): Promise<LanguageModelV3StreamResult> {
    const { turn, index } = this.take(options, caller);
    if (turn.error && !textOf(turn)) throw providerError(turn.error, this.modelId);
    const parts = streamParts(turn, index, this.modelId, options);
    const signal = options.abortSignal;
    let next = 0;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      pull: async (controller) => {
        if (signal?.aborted) {
          controller.error(abortError());
          return;
        }
        if (next < parts.length) {
          controller.enqueue(parts[next++]);
          return;
        }
        if (turn.waitForAbort) {
          await waitForAbort(signal, index).catch((e: unknown) => controller.error(e));
          return;
        }
        controller.close();
      },
    });
    return { stream };
  }

  private sections(): Section[] {
    return [...(this.main ? [this.main] : []), ...this.byProfile.values(), ...this.bySession.values()];
  }

  /** The section a caller's turns come from: its session's, else its profile's, else the top-level turns. */
  private route(caller: ScriptCaller): Section | null {
    return (
      (caller.sessionId !== undefined ? this.bySession.get(caller.sessionId) : undefined) ??
      (caller.profileKey !== undefined ? this.byProfile.get(caller.profileKey) : undefined) ??
      this.main
    );
  }

  private take(
    options: LanguageModelV3CallOptions,
    caller: ScriptCaller,
  ): { turn: ParsedTurn; index: number } {
    this.calls.push(options);
    if (options.abortSignal?.aborted) throw abortError();
    const section = this.route(caller);
    if (!section) throw this.noSection(caller);
    if (section.cursor === null) {
      // A section other than the first one called starts where its caller's history says (0 for a new session).
      const start = this.firstStart ?? "history";
      section.cursor =
        typeof start === "function"
          ? start(caller)
          : start === "history"
            ? options.prompt.filter((m) => m.role === "assistant").length
            : start;
    }
    this.firstStart = null;
    const index = section.cursor;
    const turn = section.turns[index];
    if (!turn) throw this.exhausted(section, index, caller);
    section.cursor++;
    const where = this.keyed ? ` (${section.name})` : "";
    if (turn.expect) checkExpectations(turn.expect, options, index, where);
    return { turn, index };
  }

  private exhausted(section: Section, index: number, caller: ScriptCaller): NbError {
    const what = this.keyed ? `the script's ${section.name}` : "the script";
    return new NbError(
      "limit_exceeded",
      `Scripted model "${this.modelId}" has no turn ${index + 1}${forWhom(caller)}: ${what} has ${section.turns.length} turn(s) and the conversation asked for more`,
    );
  }

  private noSection(caller: ScriptCaller): NbError {
    const names = this.sections().map((s) => s.name);
    return new NbError(
      "limit_exceeded",
      `Scripted model "${this.modelId}" has no turns${forWhom(caller)}: the script has no top-level turns and no section for it (it has ${names.join(", ")})`,
    );
  }
}

/** ` for session 2 (profile writer)`, or "" for a call that says nothing about its caller. */
function forWhom(caller: ScriptCaller): string {
  if (caller.sessionId !== undefined) {
    return ` for session ${caller.sessionId}${caller.profileKey ? ` (profile ${caller.profileKey})` : ""}`;
  }
  return caller.profileKey ? ` for profile ${caller.profileKey}` : "";
}

/** A scripted model from turns (or a whole script, sections included) given in code. */
export function scriptedModel(
  turns: ScriptedTurn[] | ScriptFile,
  opts: ScriptedModelOptions = {},
): ScriptedLanguageModel {
  const raw = Array.isArray(turns) ? { turns } : turns;
  return new ScriptedLanguageModel(parseScript(raw), opts);
}

/** A scripted model replaying a YAML or JSON script file (format: docs/scripted-model.md). */
export function scriptedModelFromFile(path: string, opts: ScriptedModelOptions = {}): ScriptedLanguageModel {
  return new ScriptedLanguageModel(readScriptFile(path), opts);
}

function streamParts(
  turn: ParsedTurn,
  index: number,
  modelId: string,
  options: LanguageModelV3CallOptions,
): LanguageModelV3StreamPart[] {
  const parts: LanguageModelV3StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "response-metadata", id: `scripted-${index}`, modelId, timestamp: new Date(0) },
  ];
  const chunks = turn.text === undefined ? [] : Array.isArray(turn.text) ? turn.text : [turn.text];
  if (chunks.some((c) => c.length > 0)) {
    const id = `text-${index}`;
    parts.push({ type: "text-start", id });
    for (const delta of chunks) if (delta) parts.push({ type: "text-delta", id, delta });
    parts.push({ type: "text-end", id });
  }
  if (turn.error) {
    parts.push({ type: "error", error: providerError(turn.error, modelId) });
    return parts;
  }
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    const id = call.id ?? callId(index, i);
    const input = JSON.stringify(call.input);
    parts.push({ type: "tool-input-start", id, toolName: call.name });
    parts.push({ type: "tool-input-delta", id, delta: input });
    parts.push({ type: "tool-input-end", id });
    parts.push({ type: "tool-call", toolCallId: id, toolName: call.name, input });
  }
  if (!turn.waitForAbort) {
    parts.push({ type: "finish", finishReason: finishReason(turn), usage: usageOf(turn, options) });
  }
  return parts;
}

function textOf(turn: ParsedTurn): string {
  if (turn.text === undefined) return "";
  return Array.isArray(turn.text) ? turn.text.join("") : turn.text;
}

function callId(turn: number, i: number): string {
  return `call_${turn + 1}_${i + 1}`;
}

function finishReason(turn: ParsedTurn): LanguageModelV3FinishReason {
  const unified = turn.finishReason ?? (turn.toolCalls?.length ? "tool-calls" : "stop");
  return { unified, raw: unified };
}

function usageOf(turn: ParsedTurn, options: LanguageModelV3CallOptions): LanguageModelV3Usage {
  const outChars =
    textOf(turn).length + (turn.toolCalls ?? []).reduce((n, c) => n + JSON.stringify(c.input).length, 0);
  const input = turn.usage?.inputTokens ?? Math.ceil(promptChars(options) / 4);
  const output = turn.usage?.outputTokens ?? Math.ceil(outChars / 4);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

function providerError(message: string, modelId: string): APICallError {
  return new APICallError({
    message,
    url: `scripted://${modelId}`,
    requestBodyValues: {},
    statusCode: 500,
    isRetryable: false,
  });
}

function abortError(): Error {
  return new DOMException("The operation was aborted", "AbortError");
}

function waitForAbort(signal: AbortSignal | undefined, index: number): Promise<never> {
  if (!signal) {
    return Promise.reject(
      new NbError(
        "invalid_input",
        `Scripted turn ${index + 1} waits for an abort, but the call has no abort signal`,
      ),
    );
  }
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(abortError());
    // A provider's open connection keeps the process alive until the call ends; so does this wait.
    // Without it a CLI run that nothing aborts would leave with its promise unsettled (exit 13).
    const hold = setInterval(() => {}, 2 ** 30);
    signal.addEventListener(
      "abort",
      () => {
        clearInterval(hold);
        reject(abortError());
      },
      { once: true },
    );
  });
}
