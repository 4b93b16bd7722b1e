import { Worker } from "node:worker_threads";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempWorld } from "../../test/world/fixture.js";
import type { NbError } from "../core/errors.js";
import { matchExpression, wordExpression } from "./search.js";

describe("search.text", () => {
  let t: ReturnType<typeof tempWorld>;
  beforeEach(() => {
    t = tempWorld();
  });
  afterEach(() => t.cleanup());

  const write = (time: number, path: string, op: "replace" | "append" | "remove", value?: string) =>
    t.world.slice.write({
      time,
      patches: [
        { subjectId: "hero", type: "character", path, op, ...(value === undefined ? {} : { value }) },
      ],
    });

  it("finds English and Chinese text entries by keyword", () => {
    write(1, "/events", "append", "The dragon burned the harbor at dawn");
    write(2, "/memory/师门", "replace", "师门的秘密藏在后山的古井里");
    write(3, "/bio", "replace", "A quiet archivist");
    expect(t.world.search.text("dragon harbor").map((h) => h.attr)).toEqual(["/events/0"]);
    expect(t.world.search.text("后山的古井").map((h) => h.attr)).toEqual(["/memory/师门"]);
    expect(t.world.search.text("古井 秘密").map((h) => h.text)).toEqual(["师门的秘密藏在后山的古井里"]);
    expect(t.world.search.text("archivist")[0]).toMatchObject({
      subjectId: "hero",
      type: "character",
      attr: "/bio",
    });
    expect(t.world.search.text("nothing-like-this")).toEqual([]);
    expect(t.world.search.text("   ")).toEqual([]);
  });

  it("ranks entries holding a term as a whole word before those holding it inside a word", () => {
    // By keyword rank alone the short entry would come first.
    write(1, "/events", "append", "stormy");
    write(2, "/events", "append", "the storm broke over the harbor wall at dawn");
    write(3, "/events", "append", "calm seas");
    expect(t.world.search.text("storm").map((h) => h.text)).toEqual([
      "the storm broke over the harbor wall at dawn",
      "stormy",
    ]);
    expect(t.world.search.text("storm", { k: 1 }).map((h) => h.text)).toEqual([
      "the storm broke over the harbor wall at dawn",
    ]);
    expect(
      t.world.search
        .text("orm")
        .map((h) => h.text)
        .sort(),
    ).toEqual(["stormy", "the storm broke over the harbor wall at dawn"]);
  });

  it("short queries fall back to a substring scan", () => {
    write(1, "/memory/gate", "replace", "师门在山中");
    expect(t.world.search.text("师门").map((h) => h.attr)).toEqual(["/memory/gate"]);
  });

  it("a removed record key leaves search; it stays findable in the past", () => {
    write(1, "/memory/oath", "replace", "swore an oath by the river");
    write(5, "/memory/oath", "remove");
    expect(t.world.search.text("river oath")).toEqual([]);
    expect(t.world.search.text("river oath", { at: 3 }).map((h) => h.attr)).toEqual(["/memory/oath"]);
    expect(t.world.search.text("river oath", { at: 0 })).toEqual([]);
  });

  it("a replaced entry shows its new text; deleting the removal brings the key back", () => {
    write(1, "/memory/oath", "replace", "swore an oath by the river");
    const removal = write(5, "/memory/oath", "remove");
    t.world.slice.delete(removal.sliceId);
    expect(t.world.search.text("river").map((h) => h.attr)).toEqual(["/memory/oath"]);
    write(6, "/memory/oath", "replace", "broke the oath in winter");
    expect(t.world.search.text("river")).toEqual([]);
    expect(t.world.search.text("winter").map((h) => h.attr)).toEqual(["/memory/oath"]);
  });

  it("filters by types and attrs; rejects unknown types and non-text attributes (34)", () => {
    write(1, "/events", "append", "storm over the tower");
    t.world.slice.write({
      time: 2,
      patches: [
        {
          subjectId: "town",
          type: "location",
          path: "/events",
          op: "append",
          value: "storm flooded the market",
        },
      ],
    });
    expect(t.world.search.text("storm", { types: ["location"] }).map((h) => h.subjectId)).toEqual(["town"]);
    expect(t.world.search.text("storm", { attrs: ["events"] })).toHaveLength(2);
    expect(t.world.search.text("storm", { attrs: ["/memory"] })).toEqual([]);
    expect(t.world.search.text("storm", { k: 1 })).toHaveLength(1);
    const bad = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return (e as NbError).code;
      }
      return "no error";
    };
    expect(bad(() => t.world.search.text("storm", { types: ["dragon"] }))).toBe("invalid_input");
    expect(bad(() => t.world.search.text("storm", { attrs: ["hp"] }))).toBe("invalid_input");
    expect(bad(() => t.world.search.text("storm", { k: 0 }))).toBe("invalid_input");
    expect(bad(() => t.world.search.text("storm", { k: Number.NaN }))).toBe("invalid_input");
  });

  it("builds trigram and word match expressions", () => {
    expect(matchExpression("ab")).toBeNull();
    expect(matchExpression('say "hi" there')).toBe('"say" OR """hi""" OR "there"');
    expect(matchExpression("后山古井")).toBe('"后山古井" OR "后山古" OR "山古井"');
    expect(wordExpression('say "hi" 后山 ab')).toBe('"say" OR """hi""" OR "ab"');
    expect(wordExpression("后山古井")).toBeNull();
  });
});

// The embedding client blocks the calling thread while it waits, so the stub server runs in a worker.
const STUB = `
const http = require("node:http");
const { parentPort } = require("node:worker_threads");
let calls = 0, inputs = 0, auth = null;
const vec = (s) => [s.includes("sea") || s.includes("ocean") ? 1 : 0, s.includes("fire") ? 1 : 0, 0.1];
const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    if (req.url === "/stats") { res.end(JSON.stringify({ calls, inputs, auth })); return; }
    const { input } = JSON.parse(body);
    auth = req.headers.authorization ?? null;
    calls++; inputs += input.length;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ data: input.map((s, i) => ({ index: i, embedding: vec(s) })) }));
  });
});
server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));
parentPort.on("message", () => server.close(() => process.exit(0)));
`;

/** The shared `embedding` section naming an OpenAI-compatible provider at `baseURL` (3-dimensional stub vectors). */
function stubConfig(
  baseURL: string,
  provider: Record<string, unknown> = {},
  embedding: Record<string, unknown> = {},
) {
  return {
    providers: { stub: { kind: "openai-compatible", baseURL, ...provider } },
    embedding: { provider: "stub", model: "stub", dimensions: 3, ...embedding },
  };
}

describe("search with embeddings", () => {
  let worker: Worker;
  let port: number;
  beforeEach(async () => {
    worker = new Worker(STUB, { eval: true });
    port = await new Promise<number>((resolve) => worker.once("message", resolve));
  });
  afterEach(async () => {
    await worker.terminate();
  });

  it("re-ranks by vector similarity, embedding each stored text once", async () => {
    process.env.NB_WORLD_STUB_API_KEY = "world-stub-key";
    const t = tempWorld(
      undefined,
      stubConfig(`http://127.0.0.1:${port}/v1`, { apiKeyEnv: "NB_WORLD_STUB_API_KEY" }),
    );
    try {
      t.world.slice.write({
        time: 1,
        patches: [
          {
            subjectId: "hero",
            type: "character",
            path: "/events",
            op: "append",
            value: "the sea voyage began at the harbor",
          },
          {
            subjectId: "hero",
            path: "/events",
            op: "append",
            value: "the harbor fire spread to the sea wall",
          },
          { subjectId: "hero", path: "/events", op: "append", value: "a quiet day at the harbor" },
        ],
      });
      const first = t.world.search.text("ocean harbor", { k: 3 });
      expect(first).toHaveLength(3);
      expect(first[2].text).toBe("a quiet day at the harbor");
      const stats1 = (await (await fetch(`http://127.0.0.1:${port}/stats`)).json()) as { inputs: number };
      // 3 entry texts + 1 query.
      expect(stats1.inputs).toBe(4);
      // The key comes from the provider's variable, as for every model.
      expect((stats1 as unknown as { auth: string }).auth).toBe("Bearer world-stub-key");
      const second = t.world.search.text("fire", { k: 1 });
      expect(second[0].text).toBe("the harbor fire spread to the sea wall");
      const stats2 = (await (await fetch(`http://127.0.0.1:${port}/stats`)).json()) as { inputs: number };
      expect(stats2.inputs).toBe(5);
    } finally {
      delete process.env.NB_WORLD_STUB_API_KEY;
      t.cleanup();
    }
  });

  const inputs = async () =>
    ((await (await fetch(`http://127.0.0.1:${port}/stats`)).json()) as { inputs: number }).inputs;

  it("finds an entry by meaning when it shares no keyword with the query", async () => {
    const t = tempWorld(undefined, stubConfig(`http://127.0.0.1:${port}/v1`));
    try {
      t.world.slice.write({
        time: 1,
        patches: [
          {
            subjectId: "hero",
            type: "character",
            path: "/events",
            op: "append",
            value: "a quiet day in town",
          },
          { subjectId: "hero", path: "/events", op: "append", value: "the sea voyage began" },
        ],
      });
      expect(t.world.search.text("ocean", { k: 1 }).map((h) => h.text)).toEqual(["the sea voyage began"]);
    } finally {
      t.cleanup();
    }
  });

  it("keeps the vectors a rolled-back transaction computed: each text is embedded once", async () => {
    const t = tempWorld(undefined, stubConfig(`http://127.0.0.1:${port}/v1`));
    try {
      t.world.slice.write({
        time: 1,
        patches: [
          { subjectId: "hero", type: "character", path: "/events", op: "append", value: "the sea voyage" },
          { subjectId: "hero", path: "/events", op: "append", value: "the harbor fire" },
        ],
      });
      const dry = t.world.transaction(() => t.world.search.text("sea", { k: 1 }), { dryRun: true });
      expect(dry.value.map((h) => h.text)).toEqual(["the sea voyage"]);
      // 2 entry texts + 1 query.
      expect(await inputs()).toBe(3);
      expect(t.world.search.text("fire", { k: 1 }).map((h) => h.text)).toEqual(["the harbor fire"]);
      expect(await inputs()).toBe(4);
    } finally {
      t.cleanup();
    }
  });

  it("a failing embedding service is an io_error, not a crash", async () => {
    const t = tempWorld(undefined, stubConfig("http://127.0.0.1:1/v1", {}, { timeoutMs: 2000 }));
    try {
      t.world.slice.write({
        time: 1,
        patches: [
          { subjectId: "hero", type: "character", path: "/events", op: "append", value: "storm at sea" },
        ],
      });
      expect(() => t.world.search.text("storm")).toThrow(/embedding request failed/);
    } finally {
      t.cleanup();
    }
  });

  it("reads only the shared section: a key in the file, an unset key variable or a provider without embeddings is a config_error", () => {
    const world = (config: Record<string, unknown>) => {
      const t = tempWorld(undefined, config);
      t.world.slice.write({
        time: 1,
        patches: [{ subjectId: "hero", type: "character", path: "/events", op: "append", value: "storm" }],
      });
      return t;
    };
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { embedding: { baseURL: `http://127.0.0.1:${port}/v1`, model: "stub", apiKey: "k", dimensions: 3 } },
        /credentials belong in the environment/,
      ],
      [
        stubConfig(`http://127.0.0.1:${port}/v1`, { apiKeyEnv: "NB_WORLD_UNSET_API_KEY" }),
        /NB_WORLD_UNSET_API_KEY, which is not set/,
      ],
      [
        { providers: { a: { kind: "anthropic" } }, embedding: { provider: "a", model: "m", dimensions: 3 } },
        /has no embedding models/,
      ],
    ];
    for (const [config, message] of cases) {
      const t = world(config);
      try {
        expect(() => t.world.search.text("storm")).toThrow(message);
      } finally {
        t.cleanup();
      }
    }
  });

  it("a local model folder leaves world search keyword-only", () => {
    const t = tempWorld(undefined, { embedding: { folder: "models/tiny", dimensions: 3 } });
    try {
      t.world.slice.write({
        time: 1,
        patches: [
          { subjectId: "hero", type: "character", path: "/events", op: "append", value: "storm at sea" },
        ],
      });
      expect(t.world.search.text("storm").map((h) => h.text)).toEqual(["storm at sea"]);
    } finally {
      t.cleanup();
    }
  });
});
