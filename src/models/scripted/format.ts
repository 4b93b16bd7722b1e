import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../../core/validate.js";

/** One tool call the scripted model makes. */
export const ScriptedToolCallSchema = z
  .object({
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()).default({}),
    /** Tool call id; defaults to `call_<turn>_<index>`. */
    id: z.string().min(1).optional(),
  })
  .strict();

/** Checks on the request a turn answers; a mismatch fails the call with a clear message. */
export const ScriptedExpectSchema = z
  .object({
    /** Substring of the system prompt. */
    system: z.string().optional(),
    /** Substring of the last user message's text. */
    lastUser: z.string().optional(),
    /** Substring of the last tool result (its text or JSON). */
    lastToolResult: z.string().optional(),
    /** Tool names that must be offered. */
    tools: z.array(z.string()).optional(),
    /** Tool names that must not be offered. */
    notTools: z.array(z.string()).optional(),
  })
  .strict();

/** Token usage a turn reports; missing numbers are estimated (4 characters per token). */
export const ScriptedUsageSchema = z
  .object({
    inputTokens: z.number().int().nonnegative().optional(),
    outputTokens: z.number().int().nonnegative().optional(),
  })
  .strict();

/** One model turn: the answer to one model call. */
export const ScriptedTurnSchema = z
  .object({
    /** Assistant text; an array is streamed as those chunks, in order. */
    text: z.union([z.string(), z.array(z.string())]).optional(),
    toolCalls: z.array(ScriptedToolCallSchema).optional(),
    usage: ScriptedUsageSchema.optional(),
    /** Simulated provider error: thrown before any output, or after `text` when text is given. */
    error: z.string().min(1).optional(),
    /** After its output, the stream stays open until the call is aborted (for abort tests). */
    waitForAbort: z.boolean().optional(),
    /** Override the finish reason (default: `tool-calls` when there are tool calls, else `stop`). */
    finishReason: z.enum(["stop", "length", "content-filter", "tool-calls", "other"]).optional(),
    expect: ScriptedExpectSchema.optional(),
  })
  .strict()
  .superRefine((t, ctx) => {
    if (t.error && t.toolCalls?.length) {
      ctx.addIssue({
        code: "custom",
        path: ["toolCalls"],
        message: "a turn with an error cannot make tool calls",
      });
    }
    if (t.error && t.waitForAbort) {
      ctx.addIssue({
        code: "custom",
        path: ["waitForAbort"],
        message: "a turn with an error cannot wait for abort",
      });
    }
  });

const TurnsSchema = z.array(ScriptedTurnSchema).min(1);

/**
 * A scripted model file: turns replayed in order. `turns` answers every call; `profiles` and
 * `sessions` give a session, or every session of a profile, turns of its own (a session's own
 * section wins over its profile's, which wins over `turns`).
 */
export const ScriptFileSchema = z
  .object({
    /** Model id reported to the AI SDK (default `script`). */
    model: z.string().min(1).optional(),
    /** Turns for calls that no section below matches (every call, in a script without sections). */
    turns: TurnsSchema.optional(),
    /** Turns keyed by profile key (e.g. `writer`), shared by every session of that profile. */
    profiles: z.record(z.string().min(1), TurnsSchema).optional(),
    /** Turns keyed by session id (e.g. `"2"`), for one session only. */
    sessions: z.record(z.string().regex(/^[1-9][0-9]*$/, "a session id (1, 2, …)"), TurnsSchema).optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    const keyed = Object.keys(s.profiles ?? {}).length + Object.keys(s.sessions ?? {}).length;
    if (!s.turns && keyed === 0) {
      ctx.addIssue({
        code: "custom",
        path: ["turns"],
        message: "required: a script needs turns, or turns keyed by profile or session",
      });
    }
  });

export type ScriptedToolCall = z.input<typeof ScriptedToolCallSchema>;
export type ScriptedTurn = z.input<typeof ScriptedTurnSchema>;
export type ScriptFile = z.input<typeof ScriptFileSchema>;
export type ParsedScript = z.output<typeof ScriptFileSchema>;
export type ParsedTurn = z.output<typeof ScriptedTurnSchema>;

/** Validate a script object; `invalid_input` with JSON-Pointer fields when it is malformed. */
export function parseScript(raw: unknown, source = "script"): ParsedScript {
  const r = ScriptFileSchema.safeParse(raw);
  if (r.success) return r.data;
  const fields = zodFieldErrors(r.error);
  throw new NbError("invalid_input", `Invalid ${source}:\n${formatFieldErrors(fields)}`, { fields });
}

/** Read and validate a script file (YAML or JSON; JSON is valid YAML). */
export function readScriptFile(path: string): ParsedScript {
  const name = basename(path);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new NbError("not_found", `Scripted model file not found or unreadable: ${name}`);
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (e) {
    throw new NbError(
      "invalid_input",
      `Scripted model file ${name} is not valid YAML/JSON: ${(e as Error).message}`,
    );
  }
  return parseScript(raw, `scripted model file ${name}`);
}
