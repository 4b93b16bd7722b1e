import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { type BenchSuite, medianMs } from "../lib.js";

const BIN = fileURLToPath(new URL("../../bin/nbook", import.meta.url));

export const suite: BenchSuite = {
  name: "mcp",
  description: "MCP round trip of a read call through a stdio client",
  async run(report) {
    const dir = mkdtempSync(join(tmpdir(), "nbook-bench-mcp-"));
    const ws = Workspace.init(join(dir, "ws"));
    const project = ws.createProject("bench", { sample: true });
    writeFileSync(join(project.root, "lorebook", "four-k.md"), "x".repeat(63).concat("\n").repeat(64));
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(
      new StdioClientTransport({
        command: BIN,
        args: ["mcp", "--workspace", ws.root, "--project", "bench"],
        stderr: "ignore",
      }),
    );
    try {
      const call = async () => {
        const r = await client.callTool({ name: "read", arguments: { path: "lorebook/four-k.md" } });
        if (r.isError) throw new Error("read failed");
      };
      const roundTrip = await medianMs(call, { iterations: 500, warmup: 50 });
      const list = await medianMs(() => client.listTools(), { iterations: 200, warmup: 20 });
      report({ name: "stdio_read_round_trip_median", unit: "ms", value: roundTrip, target: "< 5 ms" });
      report({ name: "stdio_list_tools_median", unit: "ms", value: list });
    } finally {
      await client.close();
      ws.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
