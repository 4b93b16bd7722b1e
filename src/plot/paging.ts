import { NbError } from "../core/errors.js";

/** A page of compact rows; `nextCursor` is null on the last page. */
export interface Page<T> {
  rows: T[];
  total: number;
  nextCursor: string | null;
}

export const DEFAULT_PAGE = 50;

/** Decode `limit`/`cursor` into SQL LIMIT/OFFSET values. */
export function pageWindow(opts: { limit?: number; cursor?: string }): { limit: number; offset: number } {
  const limit = opts.limit ?? DEFAULT_PAGE;
  if (opts.cursor === undefined) return { limit, offset: 0 };
  if (!/^\d{1,9}$/.test(opts.cursor)) {
    throw new NbError("invalid_input", "cursor is not one this tool returned", {
      fields: [{ pointer: "/cursor", message: "unknown cursor; pass nextCursor from the previous page" }],
    });
  }
  return { limit, offset: Number(opts.cursor) };
}

/** Build a page from the rows of one window and the total count. */
export function makePage<T>(rows: T[], total: number, win: { limit: number; offset: number }): Page<T> {
  const next = win.offset + rows.length;
  return { rows, total, nextCursor: next < total ? String(next) : null };
}
