import type { AnyTool } from "../types.js";
import { loadTools } from "./load-tools.js";
import { requestUserInput } from "./request-user-input.js";
import { switchMode } from "./switch-mode.js";

/** The control tools (seed: "Control"): asking the user, the mode, and loading on-demand tool definitions. */
export const controlTools: AnyTool[] = [requestUserInput, switchMode, loadTools];
