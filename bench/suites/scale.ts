import type { BenchSuite } from "../lib.js";
import { fileScale } from "../parts/scale-files.js";
import { mcpScale } from "../parts/scale-mcp.js";
import { sessionScale } from "../parts/scale-sessions.js";

export const suite: BenchSuite = {
  name: "scale",
  description:
    "growth with size: sessions of 1k/10k/50k entries (screen, page, resume, serve under 20 readers, compaction); projects of 10/100/1k/5k chapters (tree, files screen, search index); subject memory at 10k events; nbook mcp start-up against the filesystem MCP server, interleaved; options --sessions 1000,10000,50000 --seconds 30 --chapters 10,100,1000,5000 --mcp-rounds 21 --only sessions|files|mcp",
  async run(report, options) {
    const only = options?.get("only");
    const parts = ["sessions", "files", "mcp"];
    if (only !== undefined && !parts.includes(only))
      throw new Error(`--only takes ${parts.join(", ")}, not "${only}"`);
    const runs = (part: string) => only === undefined || only === part;
    if (runs("sessions")) await sessionScale(report, options);
    if (runs("files")) await fileScale(report, options);
    if (runs("mcp")) await mcpScale(report, options);
  },
};
