import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { DispatchResult } from "../../src/tools/types.js";
import { makeTestBed, runNbookInProcess, type TestBed } from "../helpers.js";
import { EmbeddingStub } from "./embedding-stub.js";

const DIMS = 64;
const KEY_ENV = "STUB_EMBED_API_KEY";
const KEY = "sk-stub-0123456789abcdef-SECRET";
const A = "simulation/subjects/mira";
const B = "simulation/subjects/lin";

let stub: EmbeddingStub;
let bed: TestBed;
beforeAll(async () => {
  stub = await EmbeddingStub.start(DIMS);
  process.env[KEY_ENV] = KEY;
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await stub.close();
});
beforeEach(() => {
  bed = makeTestBed("novel");
  stub.requests.length = 0;
  stub.failWith = null;
  stub.delayMs = 0;
  configure({});
});
afterEach(() => bed.cleanup());

/** Write the workspace config: the stub as an openai-compatible provider and its embedding model. */
function configure(embedding: Record<string, unknown>): void {
  writeFileSync(
    join(bed.ws.root, ".nbook", "config.json"),
    JSON.stringify({
      providers: { stub: { kind: "openai-compatible", baseURL: stub.url, apiKeyEnv: KEY_ENV } },
      embedding: { provider: "stub", model: "stub-embed", dimensions: DIMS, maxRetries: 0, ...embedding },
    }),
  );
}

const abs = (p: string) => join(bed.project.root, p);

async function ok(r: Promise<DispatchResult>): Promise<{ text: string; details?: unknown }> {
  const res = await r;
  if (!res.ok) throw new Error(`expected success: ${res.error.code} ${res.error.message}`);
  return res;
}

async function failure(r: Promise<DispatchResult>): Promise<{ code: string; message: string }> {
  const res = await r;
  if (res.ok) throw new Error(`expected an error: ${res.text}`);
  return res.error;
}

const append = (subjectPath: string, ...texts: string[]) =>
  ok(bed.call("subject_event_append", { subjectPath, events: texts.map((text) => ({ text })) }));
const search = (subjectPath: string, query: string, extra: Record<string, unknown> = {}) =>
  bed.call("subject_rag_search", { subjectPath, query, sources: ["events"], ...extra });

describe("hybrid subject memory search", () => {
  it("finds by meaning as well as by keyword, drops what is too far, and says it ran hybrid", async () => {
    await append(A, "Mira lit the lantern.", "The baker shouted at noon.", "Rain fell at dusk.");
    const r = await ok(search(A, "lamp"));
    expect(r.text).toBe("1 events candidate:\n\n1. events\nMira lit the lantern.");
    expect(r.details).toMatchObject({ count: 1, retrieval: "hybrid" });
    // Keyword search alone finds nothing for "lamp": the hit came from the vectors.
    writeFileSync(join(bed.ws.root, ".nbook", "config.json"), "{}");
    expect((await ok(search(A, "lamp"))).details).toMatchObject({ count: 0, retrieval: "keyword" });
    expect(stub.requests.every((q) => q.dimensions === DIMS && q.model === "stub-embed")).toBe(true);
    expect(stub.requests[0]?.authorization).toBe(`Bearer ${KEY}`);
  });

  it("fuses keyword and vector ranks: a keyword hit with no vector match still ranks", async () => {
    await append(A, "The lantern keeper slept.", "A ledger of the bell tower.", "Nothing here at all.");
    const r = await ok(search(A, "ledger lamp", { limit: 3 }));
    expect(r.text).toContain("The lantern keeper slept.");
    expect(r.text).toContain("A ledger of the bell tower.");
    expect(r.text).not.toContain("Nothing here");
  });

  it("re-embeds exactly one chunk after one appended event, and none when nothing changed", async () => {
    await append(A, ...Array.from({ length: 10 }, (_, i) => `Mira counted ${i} bells in the tower.`));
    await ok(search(A, "bells"));
    expect(stub.inputs()).toHaveLength(11); // ten chunks and the query

    stub.requests.length = 0;
    await ok(search(A, "chime"));
    expect(stub.inputs()).toEqual(["chime"]);

    stub.requests.length = 0;
    await append(A, "A lantern by the gate.");
    const r = await ok(search(A, "lamp"));
    expect(r.text).toContain("1. events\nA lantern by the gate.");
    expect(stub.requests.map((q) => q.input)).toEqual([["A lantern by the gate."], ["lamp"]]);
  });

  it("picks up a hand edit by hash: only the changed line is embedded", async () => {
    await append(A, "One.", "Two lanterns.", "Three.");
    await ok(search(A, "x"));
    const file = abs(`${A}/events.jsonl`);
    writeFileSync(file, readFileSync(file, "utf8").replace("Two lanterns.", "Two bells."));
    stub.requests.length = 0;
    const r = await ok(search(A, "chime"));
    expect(r.text).toContain("Two bells.");
    expect(stub.inputs()).toEqual(["Two bells.", "chime"]);
  });

  it("searches both sources, each embedded and ranked apart", async () => {
    await append(A, "The lantern went out.");
    writeFileSync(abs(`${A}/memory.jsonl`), '{"topic":"the lamp","view":"Old, smoky, mine."}\n');
    const r = await ok(search(A, "lantern", { sources: ["events", "memory"] }));
    expect(r.text).toBe(
      "1 events candidate:\n\n1. events\nThe lantern went out.\n\n1 memory candidate:\n\n1. memory topic=the lamp\nthe lamp: Old, smoky, mine.",
    );
    expect(r.details).toMatchObject({ counts: { events: 1, memory: 1 }, retrieval: "hybrid" });
    expect(stub.inputs().filter((t) => t === "lantern")).toHaveLength(1); // the query, embedded once
  });

  it("keeps subjects apart: another subject's closer vectors neither leak in nor crowd out", async () => {
    await append(A, "Mira saw a lantern.");
    await append(B, ...Array.from({ length: 30 }, (_, i) => `lantern lantern lantern ${i}`));
    const a = await ok(search(A, "lantern", { limit: 5 }));
    expect(a.text).toBe("1 events candidate:\n\n1. events\nMira saw a lantern.");
    const b = await ok(search(B, "lantern", { limit: 20 }));
    expect(b.details).toMatchObject({ count: 20 });
    expect(b.text).not.toContain("Mira");
  });

  it("a chunk whose text another subject already embedded is found without embedding it again", async () => {
    await append(A, "The lantern hums.");
    await append(B, "Lin waited.");
    await ok(search(A, "x"));
    await ok(search(B, "x"));
    await append(B, "The lantern hums.");
    stub.requests.length = 0;
    const r = await ok(search(B, "lamp"));
    expect(r.text).toBe("1 events candidate:\n\n1. events\nThe lantern hums.");
    expect(stub.inputs()).toEqual(["lamp"]);
  });

  it("an embedding service that fails is a loud error naming model, host and status, with the key masked; no keyword fall back", async () => {
    await append(A, "The lantern went out.");
    stub.failWith = 500;
    const e = await failure(search(A, "lantern"));
    expect(e.code).toBe("io_error");
    const host = new URL(stub.url).host;
    expect(e.message).toContain(
      `Embedding model "stub-embed" at openai-compatible (${host}) failed: HTTP 500`,
    );
    expect(e.message).toContain(`key ${KEY_ENV}=…CRET`);
    expect(e.message).toContain("does not fall back to keywords");
    expect(e.message).not.toContain(KEY);
    expect(stub.requests).toHaveLength(1);
  });

  it("a service that does not answer in time is a timeout naming the model and the limit", async () => {
    await append(A, "The lantern went out.");
    configure({ timeoutMs: 200 });
    stub.delayMs = 1_000;
    const e = await failure(search(A, "lantern"));
    expect(e.code).toBe("timeout");
    expect(e.message).toMatch(
      /^Embedding model "stub-embed" at openai-compatible \(127\.0\.0\.1:\d+\): no answer within 200 ms/,
    );
  });

  it("a missing key variable or an unknown provider is a config error, not keyword search", async () => {
    mkdirSync(abs(A), { recursive: true });
    delete process.env[KEY_ENV];
    try {
      expect(await failure(search(A, "x"))).toMatchObject({
        code: "config_error",
        message: expect.stringContaining(`needs its API key in the environment variable ${KEY_ENV}`),
      });
    } finally {
      process.env[KEY_ENV] = KEY;
    }
    configure({ provider: "nope" });
    expect((await failure(search(A, "x"))).message).toContain('embedding.provider "nope" is not in');
    expect(stub.requests).toHaveLength(0);
  });

  it("a new model re-embeds everything once; vectors of the old one are never compared", async () => {
    await append(A, "One lantern.", "Two bells.");
    await ok(search(A, "x"));
    configure({ model: "stub-embed-2" });
    stub.requests.length = 0;
    await ok(search(A, "x"));
    expect(stub.requests.map((q) => [q.model, q.input])).toEqual([
      ["stub-embed-2", ["One lantern.", "Two bells."]],
      ["stub-embed-2", ["x"]],
    ]);
  });

  it("nbook memory reindex rebuilds the index reusing every vector of unchanged text", async () => {
    await append(A, "One lantern.", "Two bells.");
    writeFileSync(abs(`${A}/memory.jsonl`), '{"topic":"the gate","view":"Locked at night."}\n');
    await ok(search(A, "x", { sources: ["events", "memory"] }));
    writeFileSync(abs(`${A}/events.jsonl`), '{"text":"One lantern."}\n{"text":"Three ravens."}\n');
    stub.requests.length = 0;
    const re = await runNbookInProcess(["memory", "reindex", "--json"], { cwd: bed.project.root });
    expect(re.status, re.stderr).toBe(0);
    expect(JSON.parse(re.stdout)).toEqual({ subjects: [{ id: "mira", events: 2, memory: 1, embedded: 1 }] });
    expect(stub.inputs()).toEqual(["Three ravens."]);
    const s = await runNbookInProcess(["memory", "search", "mira", "raven", "--json"], {
      cwd: bed.project.root,
    });
    expect(JSON.parse(s.stdout)).toMatchObject({ retrieval: "hybrid" });
  });
});
