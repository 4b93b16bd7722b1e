/** Default caps on model-facing text. */
export const MAX_LINES = 2000;
export const MAX_BYTES = 50 * 1024;

export interface Truncation {
  text: string;
  truncated: boolean;
  totalLines: number;
  keptLines: number;
  totalBytes: number;
}

/** Cut a UTF-8 string to at most `maxBytes` bytes without splitting a character. */
export function cutBytes(text: string, maxBytes: number, from: "start" | "end" = "start"): string {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= maxBytes) return text;
  if (from === "start") {
    let end = maxBytes;
    while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
    return buf.subarray(0, end).toString("utf8");
  }
  let start = buf.length - maxBytes;
  while (start < buf.length && (buf[start] & 0xc0) === 0x80) start++;
  return buf.subarray(start).toString("utf8");
}

/** Keep whole lines from the top until either cap is hit. */
export function truncateHead(text: string, maxLines = MAX_LINES, maxBytes = MAX_BYTES): Truncation {
  const lines = text.split("\n");
  const totalBytes = Buffer.byteLength(text, "utf8");
  if (lines.length <= maxLines && totalBytes <= maxBytes) {
    return { text, truncated: false, totalLines: lines.length, keptLines: lines.length, totalBytes };
  }
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    const b = Buffer.byteLength(line, "utf8") + 1;
    if (kept.length >= maxLines || bytes + b > maxBytes) break;
    kept.push(line);
    bytes += b;
  }
  // A single over-long first line is cut rather than dropped, so something is always readable.
  if (kept.length === 0) kept.push(cutBytes(lines[0], maxBytes));
  return {
    text: kept.join("\n"),
    truncated: true,
    totalLines: lines.length,
    keptLines: kept.length,
    totalBytes,
  };
}

/** Keep whole lines from the bottom until either cap is hit (for command output). */
export function truncateTail(text: string, maxLines = MAX_LINES, maxBytes = MAX_BYTES): Truncation {
  const lines = text.split("\n");
  const totalBytes = Buffer.byteLength(text, "utf8");
  if (lines.length <= maxLines && totalBytes <= maxBytes) {
    return { text, truncated: false, totalLines: lines.length, keptLines: lines.length, totalBytes };
  }
  const kept: string[] = [];
  let bytes = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const b = Buffer.byteLength(lines[i], "utf8") + 1;
    if (kept.length >= maxLines || bytes + b > maxBytes) break;
    kept.push(lines[i]);
    bytes += b;
  }
  if (kept.length === 0) kept.push(cutBytes(lines[lines.length - 1], maxBytes, "end"));
  kept.reverse();
  return {
    text: kept.join("\n"),
    truncated: true,
    totalLines: lines.length,
    keptLines: kept.length,
    totalBytes,
  };
}

/** The generic safety net applied by dispatch to every tool's text. */
export function capModelText(text: string): { text: string; truncated: boolean } {
  const t = truncateHead(text);
  if (!t.truncated) return { text, truncated: false };
  return {
    text: `${t.text}\n[Output truncated: showing ${t.keptLines} of ${t.totalLines} lines (${t.totalBytes} bytes). Narrow the request (offset/limit, filters, paging) to see the rest; the structured details are complete.]`,
    truncated: true,
  };
}
