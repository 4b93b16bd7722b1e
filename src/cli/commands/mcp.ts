import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import { serveMcpHttp } from "../../mcp/http.js";
import { serveMcpStdio } from "../../mcp/stdio.js";
import { SESSION_BOUND_GROUPS, sessionBoundKeys } from "../../mcp/tools.js";
import { createToolRegistry } from "../../tools/builtin.js";
import { openCliContext } from "../context.js";
import { parseMode } from "../input.js";
import { reportCliError } from "../output.js";

interface McpOptions {
  workspace?: string;
  project?: string;
  profile: string;
  mode: string;
  http?: boolean;
  port: string;
}

/** The `--help` epilogue; the left-out tools are read from the registry, so the list stays exact. */
function helpText(): string {
  return `
Tools offered: the profile's allowlist without the tools that need a NeuroBook agent session
(groups ${SESSION_BOUND_GROUPS.join(", ")}), which are left out:
  ${sessionBoundKeys(createToolRegistry()).join(", ")}.
Every call goes through the same dispatch as NeuroBook's agents (validation, allowlist, file
authorisation, SQL limits, the writer's read-only World Engine); tool errors come back as results
with isError and the error code.
In discuss/plan mode a write asks for approval through MCP elicitation when the client supports it;
otherwise it returns an approval_required error with the preview and writes nothing. As for the
agents, bash asks too (it runs confined in bubblewrap; where that is unavailable it asks in every
mode), and plan mode lets .agent/plan/*.md be written.
Resources: nbook://<project>/<path> for lorebook/ and manuscript/ Markdown, and nbook://<project>/world/schema.
Over stdio, stdout carries only MCP messages; logs go to stderr.
--http serves http://127.0.0.1:<port>/mcp and prints the URL and a bearer token (set NBOOK_MCP_TOKEN
to choose the token); every request needs "Authorization: Bearer <token>".`;
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
    .addHelpText("after", helpText)
    .action(async (o: McpOptions) => {
      try {
        const mode = parseMode(o.mode);
        const port = Number(o.port);
        if (!/^\d+$/.test(o.port) || port > 65535)
          throw new NbError("invalid_input", "--port must be 0..65535");
        const ctx = openCliContext(o);
        ctx.catalog.get(o.profile);
        const log = (line: string) => process.stderr.write(`${line}\n`);
        const opts = { ...ctx, profileKey: o.profile, mode, log };
        if (o.http) {
          const h = await serveMcpHttp({ ...opts, port, token: process.env.NBOOK_MCP_TOKEN });
          process.stdout.write(
            `NeuroBook MCP (Streamable HTTP) at ${h.url}\nAuthorization: Bearer ${h.token}\n`,
          );
          const stop = () => void h.close().then(() => process.exit(0));
          process.on("SIGINT", stop);
          process.on("SIGTERM", stop);
          return;
        }
        await serveMcpStdio(opts);
        log(`neurobook mcp: project ${ctx.project?.name ?? "(none)"}, profile ${o.profile}, ${mode} mode`);
      } catch (e) {
        reportCliError(e);
      }
    });
}
