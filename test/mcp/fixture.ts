import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ErrorInfo } from "../../src/core/errors.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { makeTestBed, type TestBed } from "../helpers.js";

/** The CLI entry the tests start as a child process. */
export const BIN = fileURLToPath(new URL("../../bin/nbook", import.meta.url));

/** What a client with elicitation answers to one approval request, given its message. */
export type Elicit = (message: string) => boolean;

/** A sample-novel workspace (project `demo`) and stdio clients of `nbook mcp` on it. */
export interface McpBed {
  bed: TestBed;
  /** Start `nbook mcp` and connect the SDK client; extra args replace the defaults entirely when given. */
  connect(opts?: { profile?: string; mode?: string; elicit?: Elicit; args?: string[] }): Promise<Client>;
  close(): Promise<void>;
}

/** Create the workspace; close() ends every client (and so every server) and removes it. */
export function mcpBed(): McpBed {
  const bed = makeTestBed("demo", { sample: true });
  const clients: Client[] = [];
  return {
    bed,
    async connect(o = {}) {
      const client = new Client(
        { name: "test", version: "1" },
        o.elicit ? { capabilities: { elicitation: { form: {} } } } : {},
      );
      const elicit = o.elicit;
      if (elicit) {
        client.setRequestHandler(ElicitRequestSchema, async (req) => ({
          action: "accept",
          content: { approve: elicit(req.params.message) },
        }));
      }
      const args = o.args ?? [
        ...["--profile", o.profile ?? "leader.default"],
        ...["--mode", o.mode ?? "normal"],
      ];
      await client.connect(
        new StdioClientTransport({
          command: BIN,
          args: ["mcp", "--workspace", bed.ws.root, "--project", "demo", ...args],
          stderr: "pipe",
        }),
      );
      clients.push(client);
      return client;
    },
    async close() {
      for (const c of clients) await c.close();
      bed.cleanup();
    },
  };
}

/** The groups the issue leaves out: tools that need a NeuroBook session (control, tasks, result, agents, jobs). */
const SESSION_GROUPS = new Set(["control", "tasks", "result", "collaboration", "jobs"]);

/** The tool keys a profile should offer over MCP: its allowlist minus the session-bound tools. */
export function expectedTools(bed: TestBed, profile: string): string[] {
  const registry = createToolRegistry();
  return [...bed.catalog.allowlist(profile).keys()]
    .filter((k) => !SESSION_GROUPS.has(registry.get(k)!.group) && registry.get(k)!.scope !== "session")
    .sort();
}

/** The text content of a tool result. */
export const textOf = (r: unknown) =>
  ((r as { content?: { text: string }[] }).content ?? []).map((c) => c.text).join("");

/** The NeuroBook error of an error result (structuredContent.error). */
export const errorOf = (r: unknown) =>
  (r as { structuredContent: { error: ErrorInfo } }).structuredContent.error;
