import { collaborationTools } from "./collaboration/index.js";
import { controlTools } from "./control/index.js";
import { fileTools } from "./files/index.js";
import { jobTools } from "./jobs/index.js";
import { memoryTools } from "./memory/index.js";
import { plotTools } from "./plot/index.js";
import { ToolRegistry } from "./registry.js";
import { researchTools } from "./research/index.js";
import { resultTools } from "./result/index.js";
import { sqlTools } from "./sql/index.js";
import { taskTools } from "./tasks/index.js";
import type { AnyTool } from "./types.js";
import { webTools } from "./web/index.js";
import { workflowTools } from "./workflows/index.js";
import { worldTools } from "./world/index.js";

/** Every tool NeuroBook ships, by group. A tool is listed here only once it really works. */
export const BUILTIN_TOOLS: readonly AnyTool[] = [
  ...fileTools,
  ...controlTools,
  ...collaborationTools,
  ...jobTools,
  ...workflowTools,
  ...taskTools,
  ...resultTools,
  ...sqlTools,
  ...worldTools,
  ...plotTools,
  ...webTools,
  ...researchTools,
  ...memoryTools,
];

/** A registry holding every built-in tool. */
export function createToolRegistry(): ToolRegistry {
  return new ToolRegistry(BUILTIN_TOOLS);
}
