import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { NbError } from "../core/errors.js";
import type { Mode } from "../core/modes.js";
import type { ProfileCatalog } from "../profiles/catalog.js";
import { projectInstructions } from "../profiles/project-instructions.js";
import { toolPorts } from "../runtime/ports.js";
import type { DispatchContext } from "../tools/dispatch.js";
import type { Project } from "../workspace/project.js";
import type { Workspace } from "../workspace/workspace.js";
import { INVALID_PARAMS, ProtocolError, toProtocolError } from "./errors.js";
import { listResources, readResource, resourceTemplates } from "./resources.js";
import type { McpToolSet } from "./tool-set.js";
import { toMcpResult } from "./tools.js";

/** Where and as whom an MCP server runs its calls. */
export interface McpServerOptions {
  workspace: Workspace;
  project: Project | null;
  tools: McpToolSet;
  catalog: ProfileCatalog;
  profileKey: string;
  mode: Mode;
  /** Diagnostics go here (stderr); stdout belongs to the protocol. */
  log?: (line: string) => void;
}

const VERSION = "0.1.0";

/** What the client's model is told about this server: where and as whom it works, and the project's AGENTS.md. */
function serverInstructions(opts: McpServerOptions): string {
  const head = `NeuroBook project ${opts.project?.name ?? "(none)"} as profile ${opts.profileKey}, ${opts.mode} mode. Paths are relative to the project; other projects are workspace/<project>/<path>.`;
  const agents = opts.project ? projectInstructions(opts.project) : null;
  return agents ? `${head}\n\n${agents}` : head;
}

/** Build an MCP server exposing a profile's tools and, for a profile that may read, the project's Markdown as resources. */
export function createMcpServer(opts: McpServerOptions): Server {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
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
    registry: opts.tools.registry,
    workspace: opts.workspace,
    project: opts.project,
    mode: opts.mode,
    profileKey: opts.profileKey,
    allow,
    ports: toolPorts(),
  };

  let worldWarmed = false;
  /**
   * A World Engine script's first call would otherwise wait for a worker to load QuickJS; one is
   * started once tools/list has been answered, so neither the handshake nor the listing waits for it.
   */
  const warmWorld = () => {
    if (worldWarmed || !allow.has("execute_world")) return;
    worldWarmed = true;
    setImmediate(() => void import("../world/script/run.js").then((m) => m.warmWorldSandbox()));
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = await opts.tools.listing();
    warmWorld();
    return { tools };
  });

  let offered: Promise<Set<string>> | undefined;
  const offeredKeys = () => {
    offered ??= opts.tools.listing().then((tools) => new Set(tools.map((t) => t.name)));
    return offered;
  };
  /**
   * A call of a tool this server does not list is a protocol error (MCP: unknown tool), not a tool
   * result; the message says why it is not offered.
   */
  const notOffered = (key: string): ProtocolError => {
    const known = opts.tools.registry.has(key);
    const why = !known
      ? `Unknown tool: ${key}`
      : !allow.has(key)
        ? `Tool ${key} is not allowed for profile ${opts.profileKey}`
        : `Tool ${key} needs a NeuroBook agent session and is not offered over MCP`;
    return new ProtocolError(INVALID_PARAMS, `${why} (tools/list lists the tools this server offers)`, {
      code: known ? "not_allowed" : "not_found",
    });
  };

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const key = req.params.name;
    if (!(await offeredKeys()).has(key)) throw notOffered(key);
    // The dispatch pipeline and the tool's group load with the first call, not the handshake.
    const [{ callWithApproval }] = await Promise.all([import("./approval.js"), opts.tools.load(key)]);
    const call = { key, input: req.params.arguments ?? {} };
    return toMcpResult(await callWithApproval(server, call, { ...base, signal: extra.signal }, log));
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: opts.project && readsFiles ? await listResources(opts.project) : [],
  }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: opts.project && readsFiles ? resourceTemplates(opts.project) : [],
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
