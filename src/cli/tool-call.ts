import type { Mode } from "../core/modes.js";
import { toolPorts } from "../runtime/ports.js";
import { type Allowlist, dispatch, type ToolCall } from "../tools/dispatch.js";
import type { CliContext } from "./context.js";
import { EXIT, printJson, writeErr, writeOut } from "./output.js";

/** The gate a command's tool call passes: its mode, the user's approval, and whose allowlist applies. */
export interface CliCallOptions {
  mode: Mode;
  approved: boolean;
  /** Run as this profile; null (the default) is the trusted user. */
  profileKey?: string | null;
  allow?: Allowlist;
  json?: boolean;
}

/**
 * Run one tool call through the dispatch every door uses and print the result — one JSON object
 * with --json, else the text on stdout or the error on stderr — setting the exit status.
 */
export async function runCliToolCall(
  ctx: Pick<CliContext, "workspace" | "project" | "registry">,
  call: ToolCall,
  o: CliCallOptions,
): Promise<void> {
  const result = await dispatch(call, {
    registry: ctx.registry,
    workspace: ctx.workspace,
    project: ctx.project,
    mode: o.mode,
    profileKey: o.profileKey ?? null,
    allow: o.allow ?? "all",
    approved: o.approved,
    ports: toolPorts(),
  });
  if (o.json) printJson(result);
  else if (result.ok) writeOut(`${result.text}\n`);
  else writeErr(`error [${result.error.code}]: ${result.error.message}\n${hint(result.error.code)}`);
  process.exitCode = result.ok ? EXIT.ok : EXIT.toolError;
}

/** What a terminal user does next: the dispatch speaks of "the user" approving, not of the CLI flag. */
function hint(code: string): string {
  return code === "approval_required"
    ? "Nothing was changed. Run the command again with --approve to make it.\n"
    : "";
}
