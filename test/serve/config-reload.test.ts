import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
afterEach(async () => {
  await fx.close();
});

let server: Server;
let baseURL: string;

/** A loopback OpenAI-compatible server that answers every chat completion with one line of text. */
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.end(
        `${chunk({ role: "assistant", content: "Hello from the new config." }, null)}${chunk({}, "stop")}data: [DONE]\n\n`,
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function writeConfig(config: object): void {
  writeFileSync(join(fx.bed.ws.root, ".nbook", "config.json"), JSON.stringify(config));
}

/** Create a session and prompt it; the answer of whichever step refused, else the prompt's. */
async function prompt(): Promise<{ status: number; body: Record<string, unknown>; id: string }> {
  const created = await fx.api("POST", "/api/projects/novel/sessions", { mode: "discuss" });
  const made = (await created.json()) as { session?: { id: string } };
  if (!made.session) return { status: created.status, body: made, id: "" };
  const id = made.session.id;
  const res = await fx.api("POST", `/api/sessions/${id}/prompt`, { message: "Hello?" });
  await fx.hub.idle();
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, id };
}

describe("a running nbook serve reads an edited config", () => {
  it("a run after the edit uses it: a missing key variable, then the fixed provider, without a restart", async () => {
    fx = await serveFixture();
    writeConfig({
      providers: { local: { kind: "openai-compatible", baseURL, apiKeyEnv: "NB_RELOAD_TEST_API_KEY" } },
      defaultModel: "local/m",
    });
    const first = await prompt();
    expect(first.status).toBe(500);
    expect(JSON.stringify(first.body)).toContain("NB_RELOAD_TEST_API_KEY, which is not set");

    writeConfig({ providers: { local: { kind: "openai-compatible", baseURL } }, defaultModel: "local/m" });
    const second = await prompt();
    expect(second.status).toBe(202);
    const t = (await (await fx.api("GET", `/api/sessions/${second.id}/transcript`)).json()) as {
      entries: { kind: string; data: { text?: string } }[];
    };
    expect(t.entries.find((e) => e.kind === "assistant")?.data.text).toBe("Hello from the new config.");

    // An invalid edit fails the next run with its pointer; the running server keeps serving.
    writeConfig({ providers: { local: { kind: "openai-compatible" } }, defaultModel: "local/m" });
    const third = await prompt();
    expect(JSON.stringify(third.body)).toContain("/providers/local/baseURL");
  });
});
