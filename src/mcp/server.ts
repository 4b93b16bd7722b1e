import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { NbError, toErrorInfo } from "../core/errors.js";
import type { ProfileCatalog } from "../profiles/catalog.js";
import { projectInstructions } from "../profiles/project-instructions.js";
import { type DispatchContext, dispatch } from "../tools/dispatch.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { DispatchResult, Mode } from "../tools/types.js";
import type { Project } from "../workspace/project.js";
import type { Workspace } from "../workspace/workspace.js";
import { toProtocolError } from "./errors.js";
import { listResources, readResource } from "./resources.js";
import { isSessionBound, mcpTools, toMcpResult } from "./tools.js";

/** Where and as whom an MCP server runs its calls. */
export interface McpServerOptions {
  workspace: Workspace;
  project: Project | null;
  registry: ToolRegistry;
  catalog: ProfileCatalog;
  profileKey: string;
  mode: Mode;
  /** Diagnostics go here (stderr); stdout belongs to the protocol. */
  log?: (line: string) => void;
}

const VERSION = "0.1.0";

/** How long a person may take to answer an approval prompt (the SDK's 60 s default is too short). */
const APPROVAL_TIMEOUT_MS = 30 * 60_000;

/** Ask the user through elicitation to approve one gated call; true only on an explicit yes. */
async function askApproval(
  server: Server,
  tool: string,
  r: Extract<DispatchResult, { ok: false }>,
  signal: AbortSignal,
): Promise<boolean> {
  const preview = (r.error.details as { preview?: { text?: string } } | undefined)?.preview?.text ?? "";
  const answer = await server.elicitInput(
    {
      mode: "form",
      message: `NeuroBook is in a read-only mode. Approve this one ${tool} call?\n\n${preview}`.slice(
        0,
        20_000,
      ),
      requestedSchema: {
        type: "object",
        properties: { approve: { type: "boolean", title: "Approve", description: "Run this one call" } },
        required: ["approve"],
      },
    },
    { signal, timeout: APPROVAL_TIMEOUT_MS },
  );
  return answer.action === "accept" && answer.content?.approve === true;
}

/** What the client's model is told about this server: where and as whom it works, and the project's AGENTS.md. */
function serverInstructions(opts: McpServerOptions): string {
  const head = `NeuroBook project ${opts.project?.name ?? "(none)"} as profile ${opts.profileKey}, ${opts.mode} mode. Paths are relative to the project; other projects are workspace/<project>/<path>.`;
  const agents = opts.project ? projectInstructions(opts.project) : null;
  return agents ? `${head}\n\n${agents}` : head;
}

/** Build an MCP server exposing a profile's tools and, for a profile that may read, the project's Markdown as resources. */
export function createMcpServer(opts: McpServerOptions): Server {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const tools = mcpTools(opts.registry, opts.catalog, opts.profileKey);
  const hidden = [opts.workspace.root, opts.workspace.realRoot];
  if (opts.project) hidden.push(opts.project.root, opts.project.realRoot);
  const allow = opts.catalog.allowlist(opts.profileKey);
  // Resources are file reads by another name: a profile without `read` gets none.
  const readsFiles = allow.has("read");
  const server = new Server(
    { name: "neurobook", version: VERSION },
    { capabilities: { tools: {}, resources: {} }, instructions: serverInstructions(opts) },
  );
  const base: Omit<DispatchContext, "approved"> = {
    registry: opts.registry,
    workspace: opts.workspace,
    project: opts.project,
    mode: opts.mode,
    profileKey: opts.profileKey,
    allow,
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const key = req.params.name;
    const tool = opts.registry.get(key);
    // Everything else, allowlisted or not, gets dispatch's own answer (not_found, not_allowed, …).
    if (tool && isSessionBound(tool) && allow.has(key)) {
      return toMcpResult({
        ok: false,
        error: {
          code: "not_allowed",
          message: `Tool ${key} needs a NeuroBook agent session and is not offered over MCP`,
        },
      });
    }
    const call = { key, input: req.params.arguments ?? {} };
    let r = await dispatch(call, { ...base, signal: extra.signal });
    if (!r.ok && r.error.code === "approval_required" && server.getClientCapabilities()?.elicitation?.form) {
      try {
        if (await askApproval(server, key, r, extra.signal))
          r = await dispatch(call, { ...base, approved: true, signal: extra.signal });
        else
          r = {
            ok: false,
            error: {
              code: "approval_required",
              message: `The user declined this ${key} call; nothing was changed.`,
            },
          };
      } catch (e) {
        log(`elicitation failed: ${toErrorInfo(e, hidden).message}`);
      }
    }
    return toMcpResult(r);
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: opts.project && readsFiles ? await listResources(opts.project) : [],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    try {
      if (!readsFiles) {
        throw new NbError(
          "not_allowed",
          `Profile ${opts.profileKey} has no read tool, so it cannot read the project's files as resources either`,
        );
      }
      if (!opts.project) throw new NbError("not_found", "This server has no current project");
      return { contents: [await readResource(opts.project, req.params.uri)] };
    } catch (e) {
      throw toProtocolError(e, hidden);
    }
  });

  return server;
}
