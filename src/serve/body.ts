import { HttpError } from "./errors.js";

/**
 * Most of an over-cap body read (and dropped) so its sender can be answered: a server that
 * answers and stops reading makes the client's upload fail (a reset, EPIPE) before it sees the
 * 413. Past this much the connection is closed instead.
 */
export const DRAIN_LIMIT = 64 * 1024 * 1024;

/** A request body of at most `limit` bytes, as text; `413 limit_exceeded` (after reading it out) past it. */
export async function readCappedBody(req: Request, limit: number): Promise<string> {
  if (!req.body) return "";
  const tooLarge = () =>
    new HttpError(413, "limit_exceeded", `The request body is larger than ${limit} bytes`);
  const declared = Number(req.headers.get("content-length") ?? Number.NaN);
  if (declared > DRAIN_LIMIT) throw tooLarge();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let over = declared > limit;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) over = true;
    if (size > DRAIN_LIMIT) {
      await reader.cancel();
      throw tooLarge();
    }
    if (!over) chunks.push(value);
  }
  if (over) throw tooLarge();
  return Buffer.concat(chunks).toString("utf8");
}
