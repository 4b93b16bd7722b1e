import type { z } from "zod";
import { NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import type { BookDetail, RankingSnapshot } from "./shapes.js";

/**
 * Where rankings and book details come from: a research service over HTTP, or snapshot files.
 * Every method throws `NbError`: `not_found` for an unknown platform, board or book (its message
 * lists the known ones when the source can tell), `io_error` / `timeout` when the source fails.
 */
export interface ResearchSource {
  /** Identifies the source in the snapshot store: movement compares snapshots of one source only. */
  readonly key: string;
  /** How results name the source to the model and the user (never a host path outside the workspace). */
  readonly label: string;
  /** True when its not_found errors list the platforms, boards or books it has. */
  readonly listsKnown: boolean;
  /** The board's latest snapshot. */
  rankings(platform: string, board: string, signal?: AbortSignal): Promise<RankingSnapshot>;
  /** One book's detail; `bookId` is the platform's own id (`externalBookId`). */
  book(platform: string, bookId: string, signal?: AbortSignal): Promise<BookDetail>;
  /**
   * Older snapshots of a board the source also holds (a folder of snapshot files keeps them all);
   * absent for a service, which only ever answers with the latest one.
   */
  archive?(platform: string, board: string): Promise<RankingSnapshot[]>;
}

/** At most this many known names are listed in a not_found message. */
const MAX_LISTED = 20;

/** "a, b, c" for a not_found message, or "none" — cut with a count past MAX_LISTED. */
export function listNames(names: readonly string[]): string {
  if (names.length === 0) return "none";
  const shown = names.slice(0, MAX_LISTED).join(", ");
  return names.length > MAX_LISTED ? `${shown}, … (${names.length - MAX_LISTED} more)` : shown;
}

/** Validate data a source returned; `io_error` naming `where` and the first offending fields. */
export function parseSourceData<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const fields = zodFieldErrors(r.error).slice(0, 5);
  throw new NbError("io_error", `${where} is not in the expected shape:\n${formatFieldErrors(fields)}`);
}

/** `io_error` when a snapshot or detail is about another platform/board/book than the one asked for. */
export function assertAnswers(where: string, asked: string, got: string): void {
  if (asked !== got) {
    throw new NbError("io_error", `${where} answers for ${got}, not for ${asked}`);
  }
}
