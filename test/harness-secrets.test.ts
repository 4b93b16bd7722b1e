import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentCollaboration } from "../src/collab/plugin.js";
import { EventBus, type HarnessEvent } from "../src/harness/events.js";
import { Harness } from "../src/harness/loop.js";
import {
  agentDbPath,
  exportJsonl,
  exportMarkdown,
  renderTranscript,
  SessionStore,
} from "../src/harness/store/index.js";
import { parseModelsConfig, resolveModel } from "../src/models/index.js";
import { ProfileCatalog } from "../src/profiles/catalog.js";
import { toolPorts } from "../src/runtime/ports.js";
import { createToolRegistry } from "../src/tools/builtin.js";
import { Workspace } from "../src/workspace/workspace.js";

const KEY = "sk-audit-SECRET-9d41c07e55aa";
const authHeaders: (string | undefined)[] = [];
let server: Server;
let baseURL: string;

const chunk = (delta: Record<string, unknown>) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "stub", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;

// A server that echoes the key it received, as some OpenAI-compatible servers do in their errors:
// first in an error chunk in the middle of a stream, then in a 401 before any output.
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      authHeaders.push(req.headers.authorization);
      const echoed = `Incorrect API key provided: ${req.headers.authorization?.replace("Bearer ", "")}`;
      if (authHeaders.length === 1) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(chunk({ role: "assistant", content: "Starting the chapter" }));
        res.write(`data: ${JSON.stringify({ error: { message: echoed, type: "auth", code: 401 } })}\n\n`);
        res.end("data: [DONE]\n\n");
        return;
      }
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: echoed, type: "invalid_request_error" } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("API keys", () => {
  it("never reach agent.sqlite, exports, events or run results, even when the provider echoes them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nbook-harness-secrets-"));
    const workspace = Workspace.init(dir);
    workspace.createProject("novel", { sample: true });
    const store = SessionStore.forWorkspace(workspace);
    const registry = createToolRegistry();
    const config = parseModelsConfig(
      { providers: { local: { kind: "openai-compatible", baseURL, apiKeyEnv: "NB_AUDIT_KEY" } } },
      "config",
    );
    const bus = new EventBus();
    const events: HarnessEvent[] = [];
    bus.on((e) => events.push(e));
    const harness = new Harness({
      collaboration: agentCollaboration(),
      ports: toolPorts(),
      workspace,
      store,
      registry,
      catalog: new ProfileCatalog(registry, workspace),
      resolveModel: (ref) => resolveModel(ref ?? "local/stub", config, { NB_AUDIT_KEY: KEY }),
      bus,
      settings: { maxRetries: 0 },
    });
    try {
      const s = harness.createSession({ profileKey: "leader.default", project: "novel" });
      const midStream = await harness.invoke(s.id, { mode: "prompt", message: "Draft chapter 3" });
      const beforeOutput = await harness.invoke(s.id, { mode: "continue" });

      expect(authHeaders).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
      expect(midStream).toMatchObject({ status: "error", finalMessage: "Starting the chapter" });
      expect(beforeOutput.status).toBe("error");
      for (const r of [midStream, beforeOutput]) {
        expect(r.error?.message).toContain("Incorrect API key provided");
        expect(r.error?.message).not.toContain(KEY);
      }

      const session = store.session(s.id);
      const exports = [
        exportJsonl(session, store.allEntries(s.id), store.approvals(s.id)),
        exportMarkdown(session, store.activePath(s.id)),
        renderTranscript(session, store.activePath(s.id)),
        JSON.stringify(events),
      ];
      expect(exports[0]).toContain("Incorrect API key provided");
      for (const text of exports) expect(text).not.toContain(KEY);
      store.close();
      const files = [agentDbPath(workspace), `${agentDbPath(workspace)}-wal`].filter(existsSync);
      for (const f of files) expect(readFileSync(f).toString("latin1")).not.toContain(KEY);
    } finally {
      harness.close();
      workspace.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
