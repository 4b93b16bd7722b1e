import type Database from "better-sqlite3";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { toKey } from "../../core/sqlite.js";
import { type EntryRow, toEntry } from "./rows.js";
import { EntrySchema } from "./schema.js";

/** The most entries one page holds. */
export const MAX_PAGE = 500;

/** Which part of a branch a page reads; `before` and `after` are entry ids, at most one of them. */
export const PageQuerySchema = z
  .object({
    before: z
      .string()
      .regex(/^[1-9]\d{0,15}$/, "expected an entry id")
      .optional(),
    after: z
      .string()
      .regex(/^[1-9]\d{0,15}$/, "expected an entry id")
      .optional(),
    /** The first page from the root instead of the newest one. */
    oldest: z.boolean().default(false),
    limit: z.number().int().min(1).max(MAX_PAGE).default(100),
  })
  .strict()
  .refine((q) => [q.before !== undefined, q.after !== undefined, q.oldest].filter(Boolean).length <= 1, {
    message: "give one of before, after and oldest",
    path: ["after"],
  });
export type PageQuery = z.input<typeof PageQuerySchema>;

/**
 * One page of a branch, root first. `older`: the cursor (`before`) of the page before it, null at
 * the root; `newer`: the cursor (`after`) of the page after it, null at the leaf.
 */
export const EntryPageSchema = z
  .object({
    entries: z.array(EntrySchema),
    older: z.string().nullable(),
    newer: z.string().nullable(),
  })
  .strict();
export type EntryPage = z.infer<typeof EntryPageSchema>;

const COLUMNS = "id, session_id, parent_id, depth, kind, data, created_at";

interface Node {
  id: number;
  session_id: number;
  parent_id: number | null;
  seg: number;
  depth: number;
}

/**
 * Reads a branch by the page, newest first. A segment is a chain ordered by id (see the entries
 * table), so a page is a few index range scans, one per branch point it crosses: its cost follows
 * the page, not the session. Cursors are entry ids, and an entry's ancestors never change, so a
 * `before` cursor reads the same page however many entries arrive after it.
 */
export class EntryPages {
  private readonly node: Database.Statement;
  private readonly down: Database.Statement;
  private readonly up: Database.Statement;

  constructor(db: Database.Database) {
    this.node = db.prepare("SELECT id, session_id, parent_id, seg, depth FROM entries WHERE id = ?");
    this.down = db.prepare(
      `SELECT ${COLUMNS} FROM entries WHERE seg = ? AND id <= ? ORDER BY id DESC LIMIT ?`,
    );
    this.up = db.prepare(
      `SELECT ${COLUMNS} FROM entries WHERE seg = ? AND id > ? AND id <= ? ORDER BY id LIMIT ?`,
    );
  }

  /**
   * A page of the branch ending at `leaf`: the newest entries (no cursor), those before `before`
   * (its ancestors; the leaf need not be below it), or those after `after` on the way to the leaf
   * (`conflict` when `after` is not on that branch, e.g. after the leaf moved to another one).
   */
  page(sessionKey: number, leaf: number | null, query: z.output<typeof PageQuerySchema>): EntryPage {
    if (query.after !== undefined || query.oldest) {
      const start = query.after === undefined ? null : this.nodeIn(sessionKey, query.after);
      return this.after(leaf, start, query.limit);
    }
    let from = leaf;
    if (query.before !== undefined) from = this.nodeIn(sessionKey, query.before).parent_id;
    const rows = this.ancestors(from, query.limit);
    rows.reverse();
    const entries = rows.map(toEntry);
    const first = rows[0];
    const last = rows[rows.length - 1];
    return {
      entries,
      older: first && first.parent_id !== null ? String(first.id) : null,
      newer: last && last.id !== leaf ? String(last.id) : null,
    };
  }

  // `from` and up to `limit - 1` of its ancestors, newest first.
  private ancestors(from: number | null, limit: number): EntryRow[] {
    const out: EntryRow[] = [];
    let at = from;
    while (at !== null && out.length < limit) {
      const seg = (this.node.get(at) as Node).seg;
      const rows = this.down.all(seg, at, limit - out.length) as EntryRow[];
      for (const r of rows) out.push(r);
      at = rows[rows.length - 1].parent_id;
    }
    return out;
  }

  // The entries after `start` (after nothing: from the root) on the way to the leaf.
  private after(leaf: number | null, start: Node | null, limit: number): EntryPage {
    // The segments from the leaf back to `start` (or the root), as [seg, last id on the branch].
    const spans: [number, number][] = [];
    let at = leaf;
    let found = start === null;
    while (at !== null) {
      const n = this.node.get(at) as Node;
      if (start && n.depth < start.depth) break;
      spans.push([n.seg, at]);
      if (start && n.seg === start.seg) {
        found = at >= start.id;
        break;
      }
      at = (this.node.get(n.seg) as Node).parent_id;
    }
    if (!found) {
      throw new NbError("conflict", `Entry ${start?.id} is not on the session's active branch`, {
        fields: [{ pointer: "/after", message: "not on the active branch" }],
      });
    }
    const rows: EntryRow[] = [];
    let lower = start?.id ?? 0;
    for (let i = spans.length - 1; i >= 0 && rows.length < limit; i--) {
      const [seg, upTo] = spans[i];
      for (const r of this.up.all(seg, lower, upTo, limit - rows.length) as EntryRow[]) rows.push(r);
      lower = 0;
    }
    const first = rows[0];
    const last = rows[rows.length - 1];
    return {
      entries: rows.map(toEntry),
      older: first ? String(first.id) : null,
      newer: last && last.id !== leaf ? String(last.id) : null,
    };
  }

  private nodeIn(sessionKey: number, id: string): Node {
    const n = this.node.get(toKey(id, "entry")) as Node | undefined;
    if (!n || n.session_id !== sessionKey) {
      throw new NbError("not_found", `No entry ${id} in session ${sessionKey}`);
    }
    return n;
  }
}
