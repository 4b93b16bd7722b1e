import type { AnyTool } from "../types.js";

/** The file tools (seed: "Files"). */
export const fileTools: AnyTool[] = [];
