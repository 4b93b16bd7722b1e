import { createHash } from "node:crypto";
import type { SubjectEvent, SubjectMemory } from "./files.js";

/** One searchable piece of a subject's memory: an event line or a memory topic. */
export interface Chunk {
  /** sha256 of the line's content: the chunk's identity in the index. */
  hash: string;
  /** Position in the file (0-based among its entries), for stable ordering. */
  ord: number;
  /** The text searched and shown. */
  text: string;
  topic?: string;
  tick?: string;
  time?: string;
}

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The chunks of events.jsonl, one per event; `firstOrd` is the position of the first (events appended to a file). */
export function eventChunks(events: readonly SubjectEvent[], firstOrd = 0): Chunk[] {
  return events.map((e, i) => ({
    hash: sha256(JSON.stringify(["events", e.text, e.tick ?? null, e.time ?? null])),
    ord: firstOrd + i,
    text: e.text,
    ...(e.tick === undefined ? {} : { tick: e.tick }),
    ...(e.time === undefined ? {} : { time: e.time }),
  }));
}

/** The chunks of memory.jsonl, one per topic; the text carries the topic and aliases so they are found too. */
export function memoryChunks(memories: readonly SubjectMemory[]): Chunk[] {
  return memories.map((m, ord) => {
    const aliases = m.aliases?.length ? ` (also: ${m.aliases.join(", ")})` : "";
    const text = `${m.topic}${aliases}: ${m.view}`;
    return { hash: sha256(JSON.stringify(["memory", text])), ord, text, topic: m.topic };
  });
}
