import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { buildSystem, readPath } from "../src/harness/context.js";
import { modeGates, offeredTools, stepTools } from "../src/harness/tool-specs.js";
import { ProfileCatalog } from "../src/profiles/catalog.js";
import { createToolRegistry } from "../src/tools/builtin.js";
import { Workspace } from "../src/workspace/workspace.js";

/** What a profile sends on every turn before any history, in o200k tokens. */
export interface ProfileOverhead {
  profile: string;
  tools: number;
  systemTokens: number;
  toolTokens: number;
}

/**
 * Today's figures, measured with this same method on main at 37d321d (before model-facing schemas
 * and on-demand tool sets): the old descriptions and schemas are not in the tree any more to be
 * measured again.
 */
export const OVERHEAD_BEFORE: Readonly<Record<string, { systemTokens: number; toolTokens: number }>> = {
  "leader.default": { systemTokens: 1468, toolTokens: 11391 },
  writer: { systemTokens: 788, toolTokens: 3087 },
  retrieval: { systemTokens: 716, toolTokens: 682 },
  researcher: { systemTokens: 347, toolTokens: 952 },
  "world.engine": { systemTokens: 706, toolTokens: 1603 },
  "inline.editor": { systemTokens: 691, toolTokens: 636 },
  director: { systemTokens: 885, toolTokens: 8155 },
  "memory.curator": { systemTokens: 806, toolTokens: 173 },
  summarizer: { systemTokens: 264, toolTokens: 122 },
  "simulator.actor": { systemTokens: 297, toolTokens: 539 },
  adhoc: { systemTokens: 657, toolTokens: 331 },
};

/**
 * The first turn of each built-in profile in a new English project: the system prompt as the loop
 * builds it (profile prompt, skills catalog, mode) and the tool definitions as an OpenAI-style
 * `tools` array, both counted with o200k.
 */
export function measureOverhead(): ProfileOverhead[] {
  const dir = mkdtempSync(join(tmpdir(), "nbook-overhead-"));
  try {
    const ws = Workspace.init(join(dir, "ws"));
    const project = ws.createProject("novel");
    const registry = createToolRegistry();
    const catalog = new ProfileCatalog(registry, ws, project);
    const empty = readPath([]);
    return catalog.list().map((p) => {
      const toolKeys = [...catalog.allowlist(p.key).keys()];
      const prompt = p.systemPrompt({
        projectName: "novel",
        projectTitle: "Novel",
        language: "en",
        mode: "normal",
        initial: {},
        toolKeys,
      });
      const { tools } = stepTools(offeredTools(registry, p), empty.loadedSets);
      const sent = tools.map((t) => ({
        type: "function",
        function: { name: t.name, description: t.description, parameters: t.inputSchema },
      }));
      return {
        profile: p.key,
        tools: toolKeys.length,
        systemTokens: countTokens(
          buildSystem(prompt, modeGates(registry, catalog.allowlist(p.key)) ? "normal" : null, empty),
        ),
        toolTokens: countTokens(JSON.stringify(sent)),
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
