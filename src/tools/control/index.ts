import type { AnyTool } from "../types.js";
import { requestUserInput } from "./request-user-input.js";
import { switchMode } from "./switch-mode.js";

/** The control tools (seed: "Control"); session-bound. */
export const controlTools: AnyTool[] = [requestUserInput, switchMode];
