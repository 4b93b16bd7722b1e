import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import {
  DEFAULT_DETACHED_GRACE_MS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
} from "../../mcp/defaults.js";
import { builtinKeysRegistry, lazyToolSet } from "../../mcp/tool-set.js";
import { sessionBoundGroups, sessionBoundKeys } from "../../mcp/tools.js";
import { overrideNotice, ProfileCatalog } from "../../profiles/catalog.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { parseMode } from "../input.js";
import { locateProject } from "../locate.js";
import { reportCliError, writeErr, writeOut } from "../output.js";

interface McpOptions {
  workspace?: string;
  project?: string;
  profile: string;
  mode: string;
  http?: boolean;
  port: string;
  maxSessions: string;
  sessionIdle: string;
}

/** A whole number from an option, within bounds; `invalid_input` naming the option otherwise. */
function wholeNumber(text: string, option: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max)
    throw new NbError("invalid_input", `${option} must be a whole number from ${min} to ${max}`);
  return n;
}

/**
 * The help is written synchronously and names the left-out tools, which takes every group's code:
 * it is loaded only when the command line asks for help (`mcp --help`, `help mcp`), while serving
 * loads a group at its first call.
 */
const helpArgs = process.argv.slice(2);
const helpRegistry: ToolRegistry | undefined =
  helpArgs[0] === "help" || helpArgs.includes("--help") || helpArgs.includes("-h")
    ? (await import("../../tools/builtin.js")).createToolRegistry()
    : undefined;

/** The `--help` epilogue; the left-out tools are read from the registry, so the list stays exact. */
function helpText(registry: ToolRegistry): string {
  return `
Tools offered: the profile's allowlist without the tools that need a NeuroBook agent session
(groups ${sessionBoundGroups(registry).join(", ")}, and single tools that need one), which are left out:
  ${sessionBoundKeys(registry).join(", ")}.
Every call goes through the same dispatch as NeuroBook's agents (validation, allowlist, file
authorisation, SQL limits, the writer's read-only World Engine); tool errors come back as results
with isError and the error code. A call of a tool not listed is the JSON-RPC error -32602.
In discuss/plan mode a write asks for approval through MCP elicitation when the client supports it;
otherwise it returns an approval_required error with the preview and writes nothing. As for the
agents, bash asks too (it runs confined in bubblewrap; where that is unavailable it asks in every
mode), and plan mode lets .agent/plan/*.md be written.
Resources: nbook://<project>/<path> for lorebook/ and manuscript/ Markdown, and nbook://<project>/world/schema,
for a profile with the read tool (without it, none are listed or read); resources/templates/list
gives nbook://<project>/lorebook/{+path} and nbook://<project>/manuscript/{+path}.
The server's instructions carry the project's AGENTS.md (cut past 12,000 characters).
Over stdio, stdout carries only MCP messages; logs go to stderr.
--http serves http://127.0.0.1:<port>/mcp and prints the URL and a bearer token (set NBOOK_MCP_TOKEN
to choose the token: at least 32 random characters, e.g. from \`openssl rand -hex 32\`; a
predictable one is refused); every request needs "Authorization: Bearer <token>", a Host of
127.0.0.1:<port> or localhost:<port>, and no Origin other than that (so no web page can reach it).
At most --max-sessions sessions are open at once (more get 503), and a session without requests
for --session-idle minutes is closed (its id then gets 404); one whose client closed its event
stream (GET /mcp) is closed ${DEFAULT_DETACHED_GRACE_MS / 1000} s later, or at once when a new client needs its place.`;
}

/** `nbook mcp`: serve NeuroBook's tools over MCP (stdio by default, or Streamable HTTP). */
export function registerMcp(program: Command): void {
  program
    .command("mcp")
    .description("Serve a project's tools and Markdown files to any MCP client (stdio, or --http)")
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "current project (default: the project folder you are in)")
    .option("--profile <key>", "whose allowlist the tools follow", "leader.default")
    .option("--mode <mode>", "normal, discuss or plan (read-only modes ask before each write)", "normal")
    .option("--http", "serve Streamable HTTP on 127.0.0.1 instead of stdio")
    .option("--port <n>", "port for --http (0 = any free port)", "0")
    .option("--max-sessions <n>", "--http: most sessions open at once", String(DEFAULT_MAX_SESSIONS))
    .option(
      "--session-idle <minutes>",
      "--http: close a session after this many minutes without a request",
      String(DEFAULT_SESSION_IDLE_MS / 60_000),
    )
    .addHelpText("after", () => (helpRegistry ? helpText(helpRegistry) : ""))
    .action(async (o: McpOptions) => {
      try {
        const mode = parseMode(o.mode);
        const port = wholeNumber(o.port, "--port", 0, 65535);
        const maxSessions = wholeNumber(o.maxSessions, "--max-sessions", 1, 10_000);
        const idleMinutes = wholeNumber(o.sessionIdle, "--session-idle", 1, 7 * 24 * 60);
        const { workspace, project } = locateProject(o);
        const registry = builtinKeysRegistry();
        const catalog = new ProfileCatalog(registry, workspace, project);
        const log = (line: string) => writeErr(`${line}\n`);
        const notice = overrideNotice(catalog.get(o.profile));
        if (notice) log(`notice: ${notice}`);
        const tools = lazyToolSet(registry, workspace, catalog, o.profile);
        const opts = { workspace, project, catalog, tools, profileKey: o.profile, mode, log };
        // Each transport's modules load only when it serves: stdio never loads the HTTP server.
        if (o.http) {
          const { serveMcpHttp } = await import("../../mcp/http.js");
          const h = await serveMcpHttp({
            ...opts,
            port,
            token: process.env.NBOOK_MCP_TOKEN || undefined,
            maxSessions,
            sessionIdleMs: idleMinutes * 60_000,
          });
          writeOut(`NeuroBook MCP (Streamable HTTP) at ${h.url}\nAuthorization: Bearer ${h.token}\n`);
          const stop = () => void h.close().then(() => process.exit(0));
          process.on("SIGINT", stop);
          process.on("SIGTERM", stop);
          return;
        }
        const { serveMcpStdio } = await import("../../mcp/stdio.js");
        await serveMcpStdio(opts);
        log(`neurobook mcp: project ${project?.name ?? "(none)"}, profile ${o.profile}, ${mode} mode`);
      } catch (e) {
        reportCliError(e);
      }
    });
}
