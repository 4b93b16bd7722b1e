import { Console } from "node:console";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer, type McpServerOptions } from "./server.js";

/**
 * Serve MCP over stdin/stdout. stdout carries only protocol messages: from here on `console`
 * (this process's and any library's) writes to stderr.
 */
export async function serveMcpStdio(opts: McpServerOptions): Promise<void> {
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
  await createMcpServer(opts).connect(new StdioServerTransport());
}
