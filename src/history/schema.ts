import { z } from "zod";

/**
 * Who made a change: the user (workbench, `nbook tool` without a profile), an edit made outside
 * NeuroBook, an import, an agent (session and profile), or a revert (by whoever ran it).
 */
export const ActorSchema = z.enum(["user", "outside", "import", "agent", "revert"]);
export type Actor = z.infer<typeof ActorSchema>;

/** A change id: time-sortable (base-36 milliseconds, then a per-process counter and random tail). */
export const ChangeIdSchema = z.string().regex(/^c[0-9a-z]{9}[0-9a-z]{6}$/, "not a change id");

/** One recorded change, as the change index keeps it and every door shows it. */
export const ChangeSchema = z
  .object({
    id: z.string(),
    time: z.string(),
    actor: ActorSchema,
    session: z.string().nullable(),
    profile: z.string().nullable(),
    tool: z.string().nullable(),
    callId: z.string().nullable(),
    /**
     * The turn it was made in: the session entry id of the user message that began the turn
     * (null: no session, or recorded before changes carried their turn).
     */
    turn: z.string().nullable(),
    /** Project-relative paths of the files it changed (those of the commit), else what it named. */
    targets: z.array(z.string()).nullable(),
    summary: z.string(),
    /** The history commit holding its files; null for a change of database rows only. */
    commit: z.string().nullable(),
    /** For a revert: the ids it took back. */
    reverts: z.array(z.string()).nullable(),
  })
  .strict();
export type Change = z.infer<typeof ChangeSchema>;

/** The filters of a listing (newest first). */
export const ChangeFilterSchema = z
  .object({
    session: z.string().optional(),
    /** The turn (entry id of its user message) the changes were made in. */
    turn: z.string().optional(),
    /** The tool call (of `session`) that made them. */
    callId: z.string().optional(),
    path: z.string().optional(),
    /** ISO time: only changes at or after it. */
    since: z.string().optional(),
    before: z.string().optional(),
    limit: z.number().int().positive().optional(),
  })
  .strict();
export type ChangeFilter = z.infer<typeof ChangeFilterSchema>;
