import { z } from "zod";
import { defineProfile } from "../define.js";
import { basePrompt } from "./prompt.js";

export const worldEngine = defineProfile({
  key: "world.engine",
  name: "World Engine",
  description: "Maintains and validates the World Engine: schema, calendar and the time-sliced world state.",
  output: z.object({ result: z.string().optional() }).strict(),
  tools: [
    "read",
    "search",
    { key: "execute_world", access: "readwrite" },
    "write",
    "edit",
    "apply_patch",
    // Its files (world-engine/schema.yaml, calendar.yaml) change rarely; the world itself changes through execute_world.
    { key: "load_tools", sets: { files: ["write", "edit", "apply_patch"] } },
  ],
  systemPrompt: (ctx) =>
    `${basePrompt("You maintain the World Engine of this novel: the state of characters, places, factions and items over world time.", ctx)}

The schema and calendar live in world-engine/. Record changes, not states; several changes at one moment belong in one slice.`,
});
