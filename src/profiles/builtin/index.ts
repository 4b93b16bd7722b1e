import type { Profile } from "../types.js";
import { adhoc } from "./adhoc.js";
import { director } from "./director.js";
import { inlineEditor } from "./inline-editor.js";
import { leaderDefault } from "./leader.js";
import { memoryCurator } from "./memory-curator.js";
import { researcher } from "./researcher.js";
import { retrieval } from "./retrieval.js";
import { simulatorActor } from "./simulator-actor.js";
import { summarizer } from "./summarizer.js";
import { worldEngine } from "./world-engine.js";
import { writer } from "./writer.js";

/** Every built-in profile, in menu order. */
export const BUILTIN_PROFILES: readonly Profile[] = [
  leaderDefault,
  writer,
  retrieval,
  researcher,
  worldEngine,
  inlineEditor,
  director,
  memoryCurator,
  summarizer,
  simulatorActor,
  adhoc,
];
