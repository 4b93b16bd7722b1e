// The chat's slash commands, as `nbook chat` has them: what a line means, and what the completion
// popup offers as it is typed. Pure, so that it loads under Node for the unit tests.
import type { Mode } from "../../src/core/modes.js";

export const MODE_NAMES: readonly Mode[] = ["normal", "discuss", "plan"];
export const REWIND_SCOPES = ["conversation", "files", "both"] as const;
export type RewindScope = (typeof REWIND_SCOPES)[number];

/** What a slash line asks for; `usage` is the line's mistake, answered with the command's usage. */
export type Slash =
  | { cmd: "compact"; focus: string }
  | { cmd: "undo" }
  | { cmd: "rewind"; to: string | null; scope: RewindScope }
  | { cmd: "mode"; mode: Mode }
  | { cmd: "usage"; text: string };

/** The commands, with the form each takes (shown in the popup and in usage messages). */
export const SLASH_COMMANDS = [
  { name: "compact", form: "/compact [focus]" },
  { name: "undo", form: "/undo" },
  { name: "rewind", form: "/rewind [entry] [conversation|files|both]" },
  { name: "mode", form: "/mode <normal|discuss|plan>" },
  { name: "plan", form: "/plan" },
] as const;

/** The command a line names, or null when the line is a message (it does not start with `/`). */
export function parseSlash(line: string): Slash | null {
  const text = line.trim();
  if (!text.startsWith("/")) return null;
  const [name = "", ...args] = text.slice(1).split(/\s+/);
  const form = SLASH_COMMANDS.find((c) => c.name === name)?.form;
  if (name === "compact") return { cmd: "compact", focus: text.slice("/compact".length).trim() };
  if (name === "undo" && args.length === 0) return { cmd: "undo" };
  if (name === "plan" && args.length === 0) return { cmd: "mode", mode: "plan" };
  if (name === "mode" && args.length === 1 && (MODE_NAMES as string[]).includes(args[0]!))
    return { cmd: "mode", mode: args[0] as Mode };
  if (name === "rewind" && args.length <= 2) {
    const [to, scope = "conversation"] = args;
    if (
      (to === undefined || /^[1-9]\d{0,15}$/.test(to)) &&
      (REWIND_SCOPES as readonly string[]).includes(scope)
    )
      return { cmd: "rewind", to: to ?? null, scope: scope as RewindScope };
  }
  if (form) return { cmd: "usage", text: `Usage: ${form}` };
  return {
    cmd: "usage",
    text: `Unknown command /${name}. Commands: ${SLASH_COMMANDS.map((c) => c.form).join(", ")}`,
  };
}

/** One line of the completion popup: what choosing it puts in the composer, and how it reads. */
export interface Completion {
  value: string;
  label: string;
  detail: string;
}

/** A rewind point as the popup lists it (GET /api/sessions/:id/rewind). */
export interface RewindPointView {
  entryId: string;
  message: string;
}

/** What the popup offers for a draft that is a slash command being typed; empty when it is not one. */
export function slashCompletions(draft: string, points: readonly RewindPointView[]): Completion[] {
  // A completion that would change nothing is not offered: Enter then sends the line.
  return completions(draft, points).filter((c) => c.value !== draft);
}

function completions(draft: string, points: readonly RewindPointView[]): Completion[] {
  if (!draft.startsWith("/") || draft.includes("\n")) return [];
  const m = /^\/(\S*)(\s+(.*))?$/.exec(draft);
  if (!m) return [];
  const [, name = "", spaced, rest = ""] = m;
  if (!spaced)
    return SLASH_COMMANDS.filter((c) => c.name.startsWith(name)).map((c) => ({
      value: c.name === "undo" || c.name === "plan" ? `/${c.name}` : `/${c.name} `,
      label: `/${c.name}`,
      detail: c.form,
    }));
  if (name === "mode")
    return MODE_NAMES.filter((mode) => mode.startsWith(rest.trim())).map((mode) => ({
      value: `/mode ${mode}`,
      label: mode,
      detail: "/mode",
    }));
  if (name === "rewind" && !/\s/.test(rest.trim()))
    return [...points]
      .reverse()
      .filter((p) => p.entryId.startsWith(rest.trim()))
      .map((p) => ({ value: `/rewind ${p.entryId}`, label: `#${p.entryId}`, detail: p.message }));
  return [];
}
