import { join } from "node:path";
import { z } from "zod";
import { SessionStore, type EntryInput } from "../src/harness/store/index.js";
import { Workspace } from "../src/workspace/workspace.js";
const root = process.argv[2]!;
const mode = process.argv[3]!;
if (mode === "build") {
  const ws = Workspace.init(join(root, "ws")); ws.createProject("bench");
  const store = SessionStore.forWorkspace(ws);
  const s = store.createSession({ profile: { key: "leader.default", initial: z.object({}) } as never, project: "bench", title: "x" });
  let batch: EntryInput[] = [];
  for (let i = 0; i * 3 < 50000; i++) {
    batch.push({ kind: "assistant", data: { text: `Part ${i}: I will read the chapter before revising it; the tide scene needs a firmer opening and the bell must ring twice.`, toolCalls: [{ id: `c${i}`, key: "read", input: { path: `manuscript/ch${i % 40}/index.md` } }] } } as EntryInput,
      { kind: "tool_result", data: { callId: `c${i}`, key: "read", ok: true, text: "The fog had burned off by noon, and the bells of the drowned town rang under the marsh. ".repeat(4) } } as EntryInput,
      { kind: "user", data: { text: `Good. Keep going with part ${i + 1}, and keep Mira's voice dry.` } } as EntryInput);
    if (batch.length >= 300) { store.commitStep(s.id, batch); batch = []; }
  }
  if (batch.length) store.commitStep(s.id, batch);
  console.log(s.id);
} else {
  const ws = Workspace.open(join(root, "ws"));
  const store = SessionStore.forWorkspace(ws);
  const t0 = performance.now();
  const p = store.activePath(mode);
  const t1 = performance.now();
  console.log("entries", p.length, "load ms", (t1 - t0).toFixed(1), "rss MiB", (process.memoryUsage().rss / 2 ** 20).toFixed(0));
}
