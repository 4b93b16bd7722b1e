import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** An OpenAI-compatible `/chat/completions` stub on 127.0.0.1: answers "done <last user text>". */
export interface ModelStub {
  baseURL: string;
  /** The last user message of every request, in arrival order. */
  seen: string[];
  /** Requests whose last user message is in here get no answer (the connection stays open). */
  hang: Set<string>;
  close(): Promise<void>;
}

function chunk(
  delta: Record<string, unknown>,
  finish: string | null = null,
  usage?: Record<string, number>,
): string {
  const body = {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 0,
    model: "stub",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  };
  return `data: ${JSON.stringify(body)}\n\n`;
}

function lastUserText(messages: Array<{ role: string; content?: unknown }>): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content)) return m.content.map((p: { text?: string }) => p.text ?? "").join("");
  }
  return "";
}

/** Start the stub on a free loopback port. */
export async function startModelStub(): Promise<ModelStub> {
  const seen: string[] = [];
  const hang = new Set<string>();
  const open = new Set<import("node:http").ServerResponse>();
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => {
      raw += d;
    });
    req.on("end", () => {
      const body = JSON.parse(raw) as { messages: Array<{ role: string; content?: unknown }> };
      const text = lastUserText(body.messages).trim();
      seen.push(text);
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      if (hang.has(text)) {
        open.add(res);
        res.on("close", () => open.delete(res));
        return;
      }
      res.write(chunk({ role: "assistant", content: `done ${text}` }));
      res.write(chunk({}, "stop", { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 }));
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    seen,
    hang,
    close: () =>
      new Promise<void>((r) => {
        for (const res of open) res.destroy();
        server.close(() => r());
      }),
  };
}
