import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { invocationText } from "../src/collab/payload.js";
import { canonSource } from "../src/harness/canon-input.js";
import { readPath } from "../src/harness/context.js";
import type { Entry, Session } from "../src/harness/store/index.js";
import { tokenCounter } from "../src/models/tokens.js";
import { plotContext } from "../src/plot/index.js";
import { saveScene } from "../src/plot/scenes.js";
import { saveThread } from "../src/plot/threads.js";
import { ProfileCatalog } from "../src/profiles/catalog.js";
import { createToolRegistry } from "../src/tools/builtin.js";
import { Workspace } from "../src/workspace/workspace.js";
import { openWorld } from "../src/world/world.js";
import { medianTimes } from "./lib.js";

const HAN = "青石城山河风雪月星云龙虎凤鹤松竹梅兰江湖海岛林泉";

/** A distinct Chinese name for entry `i`: three characters of HAN. */
function hanName(i: number): string {
  const n = HAN.length;
  return `${HAN[i % n]}${HAN[Math.floor(i / n) % n]}${HAN[Math.floor(i / (n * n)) % n]}阁`;
}

function entryName(i: number): string {
  return i % 2 === 0 ? `Person${i}` : hanName(i);
}

/**
 * A project with `count` lorebook entries (half English, half Chinese keys, each naming the next
 * entry so recursion has work, one in ten tied to a World Engine subject with state), a scene with
 * a story time, and the per-turn canon source of a writer session on it, with a 24,000-character
 * chapter and recent messages naming 20 entries.
 */
export function canonBench(count: number): { turn: () => unknown; included: number; close: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "nbook-bench-canon-"));
  const workspace = Workspace.init(dir);
  const project = workspace.createProject("novel");
  const world = openWorld(project);
  const filler = "The harbour smelled of tar and rain; ships came and went with the tide. ";
  for (let i = 0; i < count; i++) {
    const subject = i % 10 === 0 ? `\nsubject: s${i}` : "";
    const body = `# ${entryName(i)}\n${filler.repeat(5)}Knows ${entryName((i + 1) % count)}.`;
    const front = `---\nkeys: [${entryName(i)}]\naliases: [Alias${i}]\npriority: ${i % 3}${subject}\n---\n`;
    writeFileSync(join(project.root, "lorebook", `e${i}.md`), `${front}${body}\n`);
    if (subject) {
      world.slice.write({
        time: 100 + i,
        patches: [
          {
            subjectId: `s${i}`,
            type: "character",
            name: entryName(i),
            path: "/age",
            op: "replace",
            value: 30,
          },
        ],
      });
    }
  }
  const pc = plotContext(project, "user");
  const thread = saveThread(pc, { action: "create", name: "main", title: "Main" });
  const scene = saveScene(pc, {
    action: "create",
    threadId: thread.id,
    title: "Harbour",
    worldAnchor: { startInstant: 1000, endInstant: 2000 },
  }).id;
  const mentions = Array.from({ length: 20 }, (_, k) => entryName(k * 7)).join(", ");
  writeFileSync(join(project.root, "manuscript", "ch.md"), filler.repeat(24_000 / filler.length));
  const catalog = new ProfileCatalog(createToolRegistry(), workspace, project);
  const session = { id: "1", initial: {}, project: "novel" } as unknown as Session;
  const entry = (i: number, text: string): Entry =>
    ({
      id: String(i),
      sessionId: "1",
      parentId: null,
      depth: i,
      kind: "user",
      data: { text, intent: "prompt" },
      createdAt: "",
    }) as Entry;
  const payload = invocationText("Write the scene.", { path: "manuscript/ch.md", sceneId: scene }) as string;
  const state = readPath([entry(1, payload), entry(2, `Remember ${mentions}.`)]);
  const source = canonSource(project, catalog.get("writer"), session, tokenCounter("openai/gpt-4o").count);
  if (!source) throw new Error("canon is off");
  const included = source(state).activation.included.length;
  return {
    turn: () => source(state),
    included,
    close: () => {
      workspace.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Median milliseconds canon adds to a turn (wall and CPU), lorebook already read once. */
export async function measureCanon(count: number): Promise<{ wall: number; cpu: number; included: number }> {
  const b = canonBench(count);
  try {
    const t = await medianTimes(b.turn, { iterations: 30, warmup: 5 });
    return { ...t, included: b.included };
  } finally {
    b.close();
  }
}
