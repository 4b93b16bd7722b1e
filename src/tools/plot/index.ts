import { plotReadTools } from "./read.js";
import { plotWriteTools } from "./write.js";

/** The fifteen plot tools: eight reads (list mode when the id is omitted) and seven writes. */
export const plotTools = [...plotReadTools, ...plotWriteTools];
