import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { folderEmbeddingProvider } from "../../src/models/embeddings/onnx-folder.js";
import type { DispatchResult } from "../../src/tools/types.js";
import { makeTestBed, type TestBed } from "../helpers.js";

const installed = await import("@huggingface/transformers").then(
  () => true,
  () => false,
);

// ---- A tiny ONNX model, encoded here by hand (protobuf wire format of onnx.proto). ----

function varint(value: number): Buffer {
  const out: number[] = [];
  let n = value;
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return Buffer.from(out);
}
const field = (n: number, wire: number) => varint(n * 8 + wire);
const int = (n: number, v: number) => Buffer.concat([field(n, 0), varint(v)]);
const bytes = (n: number, b: Buffer) => Buffer.concat([field(n, 2), varint(b.length), b]);
const str = (n: number, s: string) => bytes(n, Buffer.from(s, "utf8"));
const msg = (n: number, ...parts: Buffer[]) => bytes(n, Buffer.concat(parts));
/** TensorShapeProto.Dimension: a fixed size or a named (dynamic) one. */
const dim = (d: number | string) => msg(1, typeof d === "number" ? int(1, d) : str(2, d));
/** ValueInfoProto {name, type: TypeProto {tensor_type {elem_type, shape}}}. */
const valueInfo = (n: number, name: string, elemType: number, dims: (number | string)[]) =>
  msg(n, str(1, name), msg(2, msg(1, int(1, elemType), msg(2, ...dims.map(dim)))));
const FLOAT = 1;
const INT64 = 7;

const VOCAB = ["[PAD]", "[UNK]", "lantern", "lamp", "bell", "chime", "river"];
const D = 4;
/** Each word's vector: synonyms share one direction; unknown words point a little elsewhere. */
const TABLE: Record<string, number[]> = {
  lantern: [1, 0, 0, 0],
  lamp: [1, 0, 0, 0],
  bell: [0, 1, 0, 0],
  chime: [0, 1, 0, 0],
  river: [0, 0, 1, 0],
  "[UNK]": [0, 0, 0, 0.1],
};

/** A model whose output is `Gather(table, input_ids)`: one vector per token, as last_hidden_state. */
function modelBytes(): Buffer {
  const table = new Float32Array(VOCAB.length * D);
  VOCAB.forEach((w, i) => {
    table.set(TABLE[w] ?? [0, 0, 0, 0], i * D);
  });
  const initializer = msg(
    5,
    int(1, VOCAB.length),
    int(1, D),
    int(2, FLOAT),
    str(8, "table"),
    bytes(9, Buffer.from(table.buffer)),
  );
  const gather = msg(1, str(1, "table"), str(1, "input_ids"), str(2, "last_hidden_state"), str(4, "Gather"));
  const graph = msg(
    7,
    gather,
    str(2, "tiny"),
    initializer,
    valueInfo(11, "input_ids", INT64, ["batch", "sequence"]),
    valueInfo(11, "attention_mask", INT64, ["batch", "sequence"]),
    valueInfo(12, "last_hidden_state", FLOAT, ["batch", "sequence", D]),
  );
  // ModelProto: ir_version 8, producer, graph, opset_import {domain "", version 13}.
  return Buffer.concat([int(1, 8), str(2, "nbook-test"), graph, msg(8, str(1, ""), int(2, 13))]);
}

/** Write a model folder: config.json, tokenizer.json (word level), tokenizer_config.json, onnx/model.onnx. */
function writeModelFolder(dir: string): void {
  mkdirSync(join(dir, "onnx"), { recursive: true });
  writeFileSync(join(dir, "onnx", "model.onnx"), modelBytes());
  writeFileSync(join(dir, "config.json"), JSON.stringify({ model_type: "bert", hidden_size: D }));
  const special = (id: number, content: string) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  writeFileSync(
    join(dir, "tokenizer.json"),
    JSON.stringify({
      version: "1.0",
      truncation: null,
      padding: null,
      added_tokens: [special(0, "[PAD]"), special(1, "[UNK]")],
      normalizer: { type: "Lowercase" },
      pre_tokenizer: { type: "Whitespace" },
      post_processor: null,
      decoder: null,
      model: {
        type: "WordLevel",
        vocab: Object.fromEntries(VOCAB.map((w, i) => [w, i])),
        unk_token: "[UNK]",
      },
    }),
  );
  writeFileSync(
    join(dir, "tokenizer_config.json"),
    JSON.stringify({ pad_token: "[PAD]", unk_token: "[UNK]", model_max_length: 512 }),
  );
}

// ---- Tests ----

let modelDir: string;
beforeAll(() => {
  modelDir = mkdtempSync(join(tmpdir(), "nbook-onnx-"));
  writeModelFolder(join(modelDir, "tiny-model"));
});
afterAll(() => rmSync(modelDir, { recursive: true, force: true }));

const title = installed
  ? "a local ONNX model folder"
  : "a local ONNX model folder (skipped: the optional dependency @huggingface/transformers is not installed)";

describe.skipIf(!installed)(title, () => {
  let bed: TestBed;
  beforeEach(() => {
    bed = makeTestBed("novel");
  });
  afterEach(() => bed.cleanup());

  const configure = (embedding: Record<string, unknown>) =>
    writeFileSync(join(bed.ws.root, ".nbook", "config.json"), JSON.stringify({ embedding }));

  async function ok(r: Promise<DispatchResult>): Promise<{ text: string; details?: unknown }> {
    const res = await r;
    if (!res.ok) throw new Error(`expected success: ${res.error.code} ${res.error.message}`);
    return res;
  }

  it("embeds through the model: mean-pooled, normalised token vectors", async () => {
    const p = folderEmbeddingProvider({
      folder: join(modelDir, "tiny-model"),
      dimensions: D,
      pooling: "mean",
      batchSize: 2,
    });
    const [lamp, lantern, chime] = await p.embed(["lamp", "Lantern", "bell chime river"], "document");
    expect([...lamp!]).toEqual([1, 0, 0, 0]);
    expect([...lantern!]).toEqual([1, 0, 0, 0]);
    expect([...chime!].map((x) => Number(x.toFixed(4)))).toEqual([0, 0.8944, 0.4472, 0]);
  });

  it("runs hybrid search with the folder named in config (relative to the workspace)", async () => {
    const folder = join(bed.ws.root, "models", "tiny-model");
    writeModelFolder(folder);
    configure({ folder: "models/tiny-model", dimensions: D });
    await ok(
      bed.call("subject_event_append", {
        subjectPath: "simulation/subjects/mira",
        events: [{ text: "Mira lit the lantern." }, { text: "The baker shouted." }],
      }),
    );
    const r = await ok(
      bed.call("subject_rag_search", {
        subjectPath: "simulation/subjects/mira",
        query: "lamp",
        sources: ["events"],
      }),
    );
    expect(r.text).toBe("1 events candidate:\n\n1. events\nMira lit the lantern.");
    expect(r.details).toMatchObject({ retrieval: "hybrid" });
  });

  it("a model whose vectors have another length, or a folder without a model, is a clear error without host paths", async () => {
    const wrong = folderEmbeddingProvider({
      folder: join(modelDir, "tiny-model"),
      dimensions: 8,
      pooling: "mean",
      batchSize: 8,
    });
    await expect(wrong.embed(["lamp"], "query")).rejects.toThrow(
      'Embedding model folder "tiny-model": returned a vector of 4 values, but embedding.dimensions is 8',
    );
    const broken = join(modelDir, "broken-model");
    mkdirSync(join(broken, "onnx"), { recursive: true });
    writeFileSync(join(broken, "onnx", "model.onnx"), "not a model");
    const p = folderEmbeddingProvider({ folder: broken, dimensions: D, pooling: "mean", batchSize: 8 });
    const e = await p.embed(["x"], "query").then(
      () => null,
      (err: Error) => err,
    );
    expect(e?.message).toMatch(/^Embedding model folder "broken-model": cannot be loaded: /);
    expect(e?.message).not.toContain(modelDir);
    expect(() =>
      folderEmbeddingProvider({
        folder: join(modelDir, "nothing"),
        dimensions: D,
        pooling: "mean",
        batchSize: 8,
      }),
    ).toThrow('Embedding model folder "nothing": no onnx/model.onnx in the folder');
  });
});
