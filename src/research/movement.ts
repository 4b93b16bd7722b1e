import type { RankingItem, RankingSnapshot } from "./shapes.js";

/** A book on a board, by the platform's own id. */
export interface BoardEntry {
  bookId: string;
  title: string;
  author: string;
  rank: number;
}

/** A book that is on both boards at different ranks. */
export interface RankMove extends BoardEntry {
  previousRank: number;
  /** Places gained (positive for a climber, negative for a faller). */
  change: number;
}

/** How a board changed between two snapshots of it. */
export interface Movement {
  previousFetchedAt: string;
  /** On the board now, not before. */
  entered: BoardEntry[];
  climbed: RankMove[];
  fell: RankMove[];
  /** On the board before, not now (`rank` is the rank it had). */
  dropped: BoardEntry[];
  /** Books at the same rank as before. */
  unchanged: number;
}

/** What happened to one book of the current board since the previous snapshot. */
export type ItemChange = { kind: "new" } | { kind: "same" } | { kind: "moved"; from: number; change: number };

function entry(i: RankingItem): BoardEntry {
  return { bookId: i.externalBookId, title: i.title, author: i.author, rank: i.rank };
}

/** Each book's best rank on a board (a book listed twice counts once, where it ranks highest). */
function byBook(s: RankingSnapshot): Map<string, RankingItem> {
  const out = new Map<string, RankingItem>();
  for (const i of s.items) {
    const had = out.get(i.externalBookId);
    if (!had || i.rank < had.rank) out.set(i.externalBookId, i);
  }
  return out;
}

/** Compare a board's current snapshot with its previous one, book by book (by `externalBookId`). */
export function compareSnapshots(previous: RankingSnapshot, current: RankingSnapshot): Movement {
  const before = byBook(previous);
  const now = byBook(current);
  const m: Movement = {
    previousFetchedAt: previous.fetchedAt,
    entered: [],
    climbed: [],
    fell: [],
    dropped: [],
    unchanged: 0,
  };
  for (const [id, item] of now) {
    const old = before.get(id);
    if (!old) m.entered.push(entry(item));
    else if (old.rank === item.rank) m.unchanged++;
    else {
      const move: RankMove = { ...entry(item), previousRank: old.rank, change: old.rank - item.rank };
      (move.change > 0 ? m.climbed : m.fell).push(move);
    }
  }
  for (const [id, item] of before) if (!now.has(id)) m.dropped.push(entry(item));
  const byRank = (a: BoardEntry, b: BoardEntry) => a.rank - b.rank;
  m.entered.sort(byRank);
  m.climbed.sort((a, b) => b.change - a.change || a.rank - b.rank);
  m.fell.sort((a, b) => a.change - b.change || a.rank - b.rank);
  m.dropped.sort(byRank);
  return m;
}

/** The change of one book of the current board, for marking its line. */
export function itemChange(m: Movement, bookId: string): ItemChange {
  if (m.entered.some((e) => e.bookId === bookId)) return { kind: "new" };
  const moved = m.climbed.find((e) => e.bookId === bookId) ?? m.fell.find((e) => e.bookId === bookId);
  return moved ? { kind: "moved", from: moved.previousRank, change: moved.change } : { kind: "same" };
}
