import { z } from "zod";

/**
 * The data shapes of topic research, as the NovelScope service answers them (reference §3.2).
 * Objects are loose: fields a source adds are kept (stored and passed on in `details`), not dropped.
 * Optional upstream fields may be `null` as well as absent, as a JSON API serialises them.
 */

/** A platform key: `qidian`, `fanqie`, … */
export const PLATFORM_KEY = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** An ISO 8601 instant with a time zone (a time without one would be read in the host's zone). */
const Instant = z.iso.datetime({ offset: true });

/** The platform's own book id; a service may send it as a number. */
const ExternalId = z.union([z.string().min(1).max(100), z.number().int().nonnegative()]).transform(String);

/** What a ranking may say about a book; any of it may be missing (Qidian's rankings carry none). */
export const RankingMetricsSchema = z.looseObject({
  readCount: z.number().nonnegative().nullish(),
  wordCount: z.number().nonnegative().nullish(),
  creationStatus: z.string().nullish(),
  lastChapterTitle: z.string().nullish(),
  category: z.string().nullish(),
});

/** One book's place on a board. */
export const RankingItemSchema = z.looseObject({
  id: z.string().nullish(),
  snapshotId: z.string().nullish(),
  /** The service's internal id; `externalBookId` is the one book detail takes. */
  bookId: z.string().nullish(),
  rank: z.number().int().positive(),
  externalBookId: ExternalId,
  title: z.string().min(1),
  author: z.string(),
  coverUrl: z.string().nullish(),
  sourceUrl: z.string().nullish(),
  metrics: RankingMetricsSchema.nullish().transform((m) => m ?? {}),
});
export type RankingItem = z.infer<typeof RankingItemSchema>;

/** A board as collected at one time (`fetchedAt`); snapshots never change once taken. */
export const RankingSnapshotSchema = z.looseObject({
  id: z.string().nullish(),
  platform: z.string().regex(PLATFORM_KEY, "must be a platform key"),
  rankTypeKey: z.string().min(1).max(100),
  /** The board's display name (月票榜). */
  rankType: z.string().min(1),
  sourceUrl: z.string().nullish(),
  fetchedAt: Instant,
  createdAt: Instant.nullish(),
  items: z.array(RankingItemSchema).max(1000),
});
export type RankingSnapshot = z.infer<typeof RankingSnapshotSchema>;

/** What a source knows about one book. `stale` is the source's own flag: its refresh failed. */
export const BookDetailSchema = z.looseObject({
  bookId: z.string().nullish(),
  platform: z.string().regex(PLATFORM_KEY, "must be a platform key"),
  externalBookId: ExternalId,
  title: z.string().min(1),
  author: z.string(),
  description: z
    .string()
    .nullish()
    .transform((d) => d ?? ""),
  coverUrl: z.string().nullish(),
  genres: z
    .array(z.string())
    .nullish()
    .transform((g) => g ?? []),
  bookStatus: z.string().nullish(),
  wordCount: z.number().nonnegative().nullish(),
  metadata: z
    .record(z.string(), z.unknown())
    .nullish()
    .transform((m) => m ?? {}),
  sourceUrl: z.string().nullish(),
  fetchedAt: Instant,
  expiresAt: Instant.nullish(),
  stale: z
    .boolean()
    .nullish()
    .transform((s) => s === true),
});
export type BookDetail = z.infer<typeof BookDetailSchema>;
