import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Words the stub treats as one meaning, so a test can find text that shares no keyword with the query. */
const SYNONYMS: Record<string, string> = {
  lamp: "lantern",
  lanterns: "lantern",
  chime: "bell",
  bells: "bell",
};

/** A deterministic vector of a text: its words (synonyms folded) counted into `dims` buckets. */
export function stubVector(text: string, dims: number): number[] {
  const v = Array.from({ length: dims }, () => 0);
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const word = SYNONYMS[raw] ?? raw;
    let h = 2166136261;
    for (const ch of word) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619) >>> 0;
    v[h % dims]! += 1;
  }
  if (!v.some((x) => x !== 0)) v[0] = 1;
  return v;
}

/** One request the stub received. */
export interface StubRequest {
  model: string;
  input: string[];
  dimensions: unknown;
  authorization: string | undefined;
}

/**
 * An OpenAI-compatible `/v1/embeddings` endpoint on 127.0.0.1 (port 0) that records every request;
 * `failWith` makes it answer with that HTTP status instead, `delayMs` makes it slow.
 */
export class EmbeddingStub {
  readonly requests: StubRequest[] = [];
  failWith: number | null = null;
  /** Milliseconds to wait before answering. */
  delayMs = 0;
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(dims: number): Promise<EmbeddingStub> {
    let stub: EmbeddingStub | undefined;
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString("utf8");
      });
      req.on("end", async () => {
        if (stub!.delayMs) await new Promise((r) => setTimeout(r, stub!.delayMs));
        if (res.destroyed) return;
        const json = JSON.parse(body) as { model: string; input: string[]; dimensions?: number };
        stub!.requests.push({
          model: json.model,
          input: json.input,
          dimensions: json.dimensions,
          authorization: req.headers.authorization,
        });
        if (stub!.failWith !== null) {
          res.writeHead(stub!.failWith, { "content-type": "application/json" });
          res.end(
            JSON.stringify({ error: { message: `model overloaded (got ${req.headers.authorization})` } }),
          );
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            data: json.input.map((t, index) => ({ index, embedding: stubVector(t, dims) })),
            usage: { prompt_tokens: json.input.length },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    stub = new EmbeddingStub(server, `http://127.0.0.1:${port}/v1`);
    return stub;
  }

  /** Every text the stub embedded, in order. */
  inputs(): string[] {
    return this.requests.flatMap((r) => r.input);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
