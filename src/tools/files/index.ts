import type { AnyTool } from "../types.js";
import { applyPatchTool } from "./apply-patch.js";
import { bashTool } from "./bash.js";
import { editTool } from "./edit.js";
import { readTool } from "./read.js";
import { searchTool } from "./search.js";
import { writeTool } from "./write.js";

/** The file tools (seed: "Files"). */
export const fileTools: AnyTool[] = [readTool, writeTool, editTool, applyPatchTool, bashTool, searchTool];
