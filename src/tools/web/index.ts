import type { AnyTool } from "../types.js";
import { webFetch } from "./fetch.js";
import { webSearch } from "./search.js";

/** The web tools (seed: "Web"): read-only, usually granted only to the researcher. */
export const webTools: AnyTool[] = [webSearch, webFetch];
