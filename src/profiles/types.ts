import type { z } from "zod";
import type { Mode } from "../core/modes.js";
import type { SkillsForm } from "../skills/prompt-section.js";
import type { ToolBinding } from "../tools/types.js";

/** An allowlist entry: a tool key, or a key with a binding (e.g. `{ key: "execute_world", access: "readonly" }`). */
export type AllowEntry = string | ({ key: string } & Record<string, unknown>);

/** What a profile's system-prompt builder may look at. */
export interface PromptContext {
  projectName: string | null;
  projectTitle: string | null;
  language: "en" | "zh";
  mode: Mode;
  /** The session's validated `initial` object. */
  initial: Record<string, unknown>;
  /** Keys of the tools this profile may call. */
  toolKeys: string[];
}

/** A profile: who an agent is, what it may call, and the shapes of its inputs and outputs. */
export interface Profile {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  readonly creation: "public" | "system_only";
  /** Validated once, when a session is created. */
  readonly initial: z.ZodType;
  /** Validated for each invocation's `input`; absent = no payload accepted. */
  readonly payload?: z.ZodType;
  /** The type of `report_result.data`; absent = no structured output. */
  readonly output?: z.ZodType;
  /** A session-specific output type its `initial` defines (adhoc's `outputSchema`); wins over `output`. */
  readonly outputFor?: (initial: Record<string, unknown>) => z.ZodType | undefined;
  readonly tools: readonly AllowEntry[];
  readonly systemPrompt: (ctx: PromptContext) => string;
  /**
   * How the skills catalog appears in its prompt (when it may `read`): `described` (the default)
   * lists each skill with its description, `named` only the names, for a profile with a narrow task.
   */
  readonly skills?: SkillsForm;
  /** Default model reference `<providerId>/<modelId>`, if the profile prefers one. */
  readonly defaultModel?: string;
  readonly source: "builtin" | "user" | "project";
  /** The file a user/project profile came from (workspace-relative). */
  readonly file?: string;
}

/** An allowlist resolved to key → binding. */
export type ResolvedAllowlist = ReadonlyMap<string, ToolBinding>;
