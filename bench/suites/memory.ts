import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { appendEventsText, type Source, serializeEvent, serializeMemories } from "../../src/memory/files.js";
import { fetchLimit } from "../../src/memory/hybrid.js";
import { SubjectIndex } from "../../src/memory/search-index.js";
import { rebuildIndex, searchSubject } from "../../src/memory/subjects.js";
import { blobVector, MIN_SIMILARITY, vectorBlob } from "../../src/memory/vectors.js";
import type { EmbeddingProvider } from "../../src/models/embeddings/provider.js";
import { dispatch } from "../../src/tools/dispatch.js";
import { loadToolRegistry } from "../../src/tools/groups.js";
import { subjectFiles } from "../../src/tools/memory/access.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { type BenchResult, type BenchSuite, intOption, medianMs, medianTimes, round } from "../lib.js";

const WORDS = (
  "lantern bell tower river gate ledger page baker rain dusk dawn harbour ship rope salt marsh flood " +
  "mother brother sister key chapel stair window letter ink candle market fish net boat storm wind " +
  "promise secret debt coin silver iron glass bread wine smoke ash road bridge mill wheel stone wall " +
  "garden rose thorn knife needle thread cloak hood mask song prayer oath lie truth fear hope anger " +
  "grief joy dream memory shadow mirror clock hour night morning noon evening winter summer spring " +
  "autumn frost ice fire ember lamp torch oil well bucket rope ladder roof attic cellar door lock"
).split(" ");

/** A seeded generator, so every run indexes the same texts. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(rnd: () => number, min: number, max: number): string {
  const n = min + Math.floor(rnd() * (max - min + 1));
  return Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");
}

/**
 * A deterministic local embedding function (no model, no network): words hashed into buckets,
 * normalised. It counts the texts it embeds, which is the cost the incremental index saves.
 */
function localEmbedding(dimensions: number): EmbeddingProvider & { embedded: number } {
  const p = {
    id: `bench-hash@${dimensions}`,
    dimensions,
    label: '"bench-hash"',
    embedded: 0,
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      p.embedded += texts.length;
      return texts.map((t) => {
        const v = new Float32Array(dimensions);
        for (const w of t.toLowerCase().split(/\W+/)) {
          if (!w) continue;
          let h = 2166136261;
          for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619) >>> 0;
          v[h % dimensions]! += 1;
          v[(h >>> 8) % dimensions]! += 0.5;
        }
        let n = 0;
        for (const x of v) n += x * x;
        const inv = 1 / Math.sqrt(n || 1);
        for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
        return v;
      });
    },
  };
  return p;
}

export const suite: BenchSuite = {
  name: "memory",
  description:
    "subject memory search on a subject with 10,000 events and 2,000 memory topics: keyword, hybrid with stored vectors, append + search, rebuild cost in chunks embedded, similarity in SQLite vs a typed-array loop",
  async run(report, options) {
    const EVENTS = intOption(options, "events", 10_000);
    const TOPICS = intOption(options, "topics", 2_000);
    const DIMS = intOption(options, "dims", 384);
    const dir = mkdtempSync(join(tmpdir(), "nb-bench-memory-"));
    const ws = Workspace.init(join(dir, "ws"));
    try {
      const project = ws.createProject("novel");
      const files = subjectFiles(
        {
          workspace: ws,
          project,
          mode: "normal",
          profileKey: null,
          binding: {},
          worldFiles: "readwrite",
        },
        "any",
      );
      const rnd = random(12);
      const subject = "simulation/subjects/mira";
      const events = Array.from({ length: EVENTS }, (_, i) => ({
        text: `Mira ${sentence(rnd, 8, 24)}.`,
        tick: String(i).padStart(6, "0"),
      }));
      await files.write(`${subject}/events.jsonl`, `${events.map(serializeEvent).join("\n")}\n`);
      const memories = Array.from({ length: TOPICS }, (_, i) => ({
        topic: `${WORDS[i % WORDS.length]} ${i}`,
        view: sentence(rnd, 15, 45),
      }));
      await files.write(`${subject}/memory.jsonl`, serializeMemories(memories));
      // Another subject in the same index: searches must partition it away.
      const other = "simulation/subjects/lin";
      await files.write(
        `${other}/events.jsonl`,
        `${Array.from({ length: 2_000 }, () => serializeEvent({ text: `Lin ${sentence(rnd, 8, 24)}.` })).join("\n")}\n`,
      );

      /** Report the wall and the CPU median of `fn` (CPU time is steadier on a shared machine). */
      const timed = async (name: string, fn: () => unknown, target?: string) => {
        const t = await medianTimes(fn, { iterations: 30 });
        const extra: Partial<BenchResult> = target ? { target } : {};
        report({ name, unit: "ms", value: round(t.wall), ...extra });
        report({ name: `${name}_cpu`, unit: "ms", value: round(t.cpu), ...extra });
      };
      const embedding = localEmbedding(DIMS);
      const queries = [
        "lantern tower",
        "silver debt promise",
        "flood gate at night",
        "ledger page",
        "winter grief",
      ];
      let q = 0;
      const search = (sources: Source[], withVectors: boolean) =>
        searchSubject(files, subject, sources, queries[q++ % queries.length]!, {
          embedding: withVectors ? embedding : null,
        });

      // First searches build the index (keyword chunks, then every vector once).
      const t0 = process.hrtime.bigint();
      await search(["events", "memory"], false);
      const buildKeyword = Number(process.hrtime.bigint() - t0) / 1e6;
      const t1 = process.hrtime.bigint();
      await search(["events", "memory"], true);
      const buildVectors = Number(process.hrtime.bigint() - t1) / 1e6;
      report({ name: "first_search_builds_keyword_index", unit: "ms", value: round(buildKeyword) });
      report({ name: "first_hybrid_search_embeds_all_chunks", unit: "ms", value: round(buildVectors) });

      await timed("keyword_search_events", () => search(["events"], false), "< 20 ms");
      await timed("keyword_search_memory", () => search(["memory"], false), "< 20 ms");
      await timed("hybrid_search_events_cached_vectors", () => search(["events"], true), "< 40 ms");
      await timed("hybrid_search_memory_cached_vectors", () => search(["memory"], true), "< 40 ms");

      let n = 0;
      const appendOne = async () => {
        const file = `${subject}/events.jsonl`;
        const before = await files.read(file);
        await files.write(
          file,
          appendEventsText(before, [{ text: `Mira appended ${n++} ${sentence(rnd, 8, 16)}.` }]),
        );
      };
      // The append alone (what subject_event_append does: read events.jsonl, rewrite it atomically).
      await timed("append_one_event_file_rewrite", appendOne);
      await timed(
        "append_one_event_then_keyword_search",
        async () => {
          await appendOne();
          await search(["events"], false);
        },
        "< 30 ms",
      );
      await search(["events"], true);
      await timed(
        "append_one_event_then_hybrid_search",
        async () => {
          await appendOne();
          await search(["events"], true);
        },
        "< 30 ms",
      );
      const before1 = embedding.embedded;
      await appendOne();
      await search(["events"], true);
      const perAppend = embedding.embedded - before1 - 1; // minus the query
      report({
        name: "append_one_event_chunks_embedded",
        unit: "chunks",
        value: perAppend,
        baseline: EVENTS + n,
        ratio: (EVENTS + n) / perAppend,
      });

      // The same through the tools as an agent calls them: subject_event_append (its plan, anchored
      // approval basis, append and change record, and the history's own recording of the write),
      // then subject_rag_search.
      const registry = await loadToolRegistry(["subject_event_append", "subject_rag_search"]);
      const dctx = {
        registry,
        workspace: ws,
        project,
        mode: "normal" as const,
        profileKey: null,
        allow: "all" as const,
      };
      const toolAppend = async () => {
        const r = await dispatch(
          {
            key: "subject_event_append",
            input: { subjectPath: subject, events: [{ text: `Mira ${n++} ${sentence(rnd, 8, 16)}.` }] },
          },
          dctx,
        );
        if (!r.ok) throw new Error(`subject_event_append failed: ${r.error.message}`);
      };
      const toolSearch = async () => {
        const r = await dispatch(
          {
            key: "subject_rag_search",
            input: { subjectPath: subject, query: queries[q++ % queries.length]!, sources: ["events"] },
          },
          dctx,
        );
        if (!r.ok) throw new Error(`subject_rag_search failed: ${r.error.message}`);
      };
      await timed("tool_append_one_event", toolAppend);
      await timed(
        "tool_append_one_event_then_keyword_search",
        async () => {
          await toolAppend();
          await toolSearch();
        },
        "< 30 ms",
      );

      // Similarity over the subject's stored event vectors: a typed-array loop vs a SQLite function.
      const index = SubjectIndex.open(files.indexFile);
      const db = new Database(files.indexFile, { readonly: true });
      try {
        const [query] = await embedding.embed(["lantern tower night"], "query");
        const k = fetchLimit(6);
        const loop = await medianMs(() => index.nearest("mira", "events", query!, k, MIN_SIMILARITY), {
          iterations: 30,
        });
        db.function("dot", { deterministic: true }, (a: unknown, b: unknown) => {
          const x = blobVector(a as Uint8Array);
          const y = blobVector(b as Uint8Array);
          let s = 0;
          for (let i = 0; i < x.length; i++) s += x[i]! * y[i]!;
          return s;
        });
        const stmt = db.prepare(
          `SELECT c.id, dot(v.vector, ?) AS s FROM chunks c JOIN vectors v ON v.hash = c.hash
           WHERE c.subject = ? AND c.source = ? AND s >= ? ORDER BY s DESC LIMIT ?`,
        );
        const blob = vectorBlob(query!);
        const inSqlite = await medianMs(() => stmt.all(blob, "mira", "events", MIN_SIMILARITY, k), {
          iterations: 30,
        });
        report({
          name: "similarity_typed_array_loop",
          unit: "ms",
          value: round(loop),
          baseline: round(inSqlite),
          ratio: round(inSqlite / loop),
        });
        report({ name: "similarity_sqlite_function", unit: "ms", value: round(inSqlite) });
      } finally {
        db.close();
        index.close();
      }

      await searchSubject(files, other, ["events"], "lantern", { embedding });
      // A full rebuild after editing 1% of the events and of the topics, in chunks embedded, vs
      // re-embedding everything (what the original does on any change).
      const editedEvents = events.map((e, i) => (i % 100 === 0 ? { ...e, text: `${e.text} (revised)` } : e));
      await files.write(`${subject}/events.jsonl`, `${editedEvents.map(serializeEvent).join("\n")}\n`);
      const editedMemories = memories.map((m, i) =>
        i % 100 === 0 ? { ...m, view: `${m.view} (revised)` } : m,
      );
      await files.write(`${subject}/memory.jsonl`, serializeMemories(editedMemories));
      const before = embedding.embedded;
      const r0 = process.hrtime.bigint();
      const rebuilt = await rebuildIndex(files, ["lin", "mira"], embedding);
      const rebuildMs = Number(process.hrtime.bigint() - r0) / 1e6;
      const embedded = embedding.embedded - before;
      const all = rebuilt.subjects.reduce((s, r) => s + r.events + r.memory, 0);
      report({
        name: "full_rebuild_after_1pct_edits_chunks_embedded",
        unit: "chunks",
        value: embedded,
        baseline: all,
        ratio: round(all / embedded),
      });
      report({ name: "full_rebuild_after_1pct_edits", unit: "ms", value: round(rebuildMs) });
    } finally {
      ws.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
