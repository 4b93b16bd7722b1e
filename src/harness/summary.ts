import type { DispatchResult } from "../tools/types.js";

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** One line saying what a call does, e.g. `write manuscript/ch1/index.md` or `task_create "Draft"`. */
export function callSummary(key: string, input: unknown): string {
  if (!input || typeof input !== "object") return key;
  const o = input as Record<string, unknown>;
  const main = ["path", "command", "title", "question", "mode", "id", "result", "query", "code"].find(
    (k) => typeof o[k] === "string",
  );
  if (!main) return key;
  const value = String(o[main]).replace(/\s+/g, " ");
  return `${key} ${main === "path" || main === "id" || main === "mode" ? value : JSON.stringify(clip(value, 60))}`;
}

/** One line saying how a call ended: its first output line, or the error code and message. */
export function resultSummary(r: DispatchResult): string {
  if (!r.ok) return `${r.error.code}: ${clip(r.error.message.split("\n")[0], 100)}`;
  const total = (r.details as { totalLines?: unknown } | undefined)?.totalLines;
  if (typeof total === "number") return `${total} lines`;
  const first = r.text.split("\n").find((l) => l.trim()) ?? "";
  return clip(first, 100);
}
