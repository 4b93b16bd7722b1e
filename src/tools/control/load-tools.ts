import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { defineTool } from "../define.js";
import { LOAD_TOOLS, onDemandSets } from "../on-demand.js";

function setList(sets: Record<string, readonly string[]>): string {
  return Object.entries(sets)
    .map(([name, keys]) => `${name} (${keys.join(", ")})`)
    .join("; ");
}

export const loadTools = defineTool({
  key: LOAD_TOOLS,
  group: "control",
  // Only an agent session's steps send definitions on demand; elsewhere every tool is listed.
  scope: "session",
  description: "Load the definitions of a set of your tools that are sent on demand.",
  describe: (binding) => {
    const sets = onDemandSets(binding);
    return Object.keys(sets).length
      ? `Send the definitions of these tool sets with your next step (you may call them already): ${setList(sets)}.`
      : "Load the definitions of tools sent on demand (this profile has none).";
  },
  input: z.object({ sets: z.array(z.string().min(1).max(64)).min(1).max(20).describe("set names") }).strict(),
  effect: "read",
  execute: (input, ctx) => {
    const sets = onDemandSets(ctx.binding);
    const fields = input.sets.flatMap((name, i) =>
      Object.hasOwn(sets, name) ? [] : [{ pointer: `/sets/${i}`, message: `no set "${name}"` }],
    );
    if (fields.length) {
      const known = Object.keys(sets).length
        ? `Sets: ${setList(sets)}`
        : "This profile sends every tool definition already.";
      const where = fields.map((f) => `${f.pointer}: ${f.message}`).join("; ");
      throw new NbError("invalid_input", `Unknown tool set (${where}). ${known}`, { fields });
    }
    const loaded = [...new Set(input.sets)];
    return {
      text: `Loaded: ${setList(Object.fromEntries(loaded.map((n) => [n, sets[n]!])))}. Their definitions come with your next step.`,
      details: { sets: loaded },
    };
  },
});
