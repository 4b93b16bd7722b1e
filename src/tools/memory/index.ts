import type { AnyTool } from "../types.js";
import { subjectEventAppendTool } from "./append.js";
import { subjectRagSearchTool } from "./search.js";
import { subjectMemoryUpdateTool } from "./update.js";

/** The subject memory tools. */
export const memoryTools: readonly AnyTool[] = [
  subjectEventAppendTool,
  subjectRagSearchTool,
  subjectMemoryUpdateTool,
];
