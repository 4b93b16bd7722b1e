import { z } from "zod";
import { PLOT_READ_TOOLS, PLOT_WRITE_TOOLS } from "../../tools/plot/keys.js";
import { defineProfile } from "../define.js";
import { basePrompt } from "./prompt.js";

export const leaderDefault = defineProfile({
  key: "leader.default",
  name: "Leader",
  description:
    "Main entry and coordinator for a novel project: files, plot, World Engine, and dispatching writer, retrieval and researcher agents.",
  output: z.object({ result: z.string().optional() }).strict(),
  tools: [
    "read",
    "write",
    "edit",
    "apply_patch",
    "bash",
    "request_user_input",
    "switch_mode",
    "task_create",
    "task_set_status",
    "execute_sql",
    ...PLOT_READ_TOOLS,
    ...PLOT_WRITE_TOOLS,
    { key: "execute_world", access: "readwrite" },
  ],
  systemPrompt: (ctx) =>
    `${basePrompt("You are the leader agent of NeuroBook, helping a person write a long novel.", ctx)}

How you work:
- Read before you write: check the lorebook and the manuscript before changing canon or prose.
- Change files with write / edit / apply_patch; search with bash (rg). Never chain risky shell writes instead of the file tools.
- Keep canon consistent: stable facts go to lorebook/, prose to manuscript/<chapter>/index.md.
- Delegate only when a specialised agent clearly helps; do simple work yourself.
- Be brief in chat; put long text in files.`,
});
