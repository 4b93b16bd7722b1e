import { randomBytes } from "node:crypto";

let lastMs = 0;
let counter = 0;

/**
 * A new change id: `c`, the time in base-36 milliseconds (9 digits, so ids sort by time as text),
 * a per-process counter (ids made in one millisecond stay in order) and a random tail (ids made
 * by two processes in one millisecond stay apart).
 */
export function newChangeId(at: number = Date.now()): string {
  if (at === lastMs) counter = (counter + 1) % 1296;
  else {
    lastMs = at;
    counter = 0;
  }
  const tail = (randomBytes(3).readUIntBE(0, 3) % 1679616).toString(36).padStart(4, "0");
  return `c${at.toString(36).padStart(9, "0")}${counter.toString(36).padStart(2, "0")}${tail}`;
}
