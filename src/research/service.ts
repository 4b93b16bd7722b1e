import { NbError } from "../core/errors.js";
import { loadResearchSettings, type ResearchSettings, type SourceSetting } from "./config.js";
import { FileSource, SAMPLE_DIR } from "./file-source.js";
import { HttpSource } from "./http-source.js";
import { compareSnapshots, type Movement } from "./movement.js";
import type { BookDetail, RankingSnapshot } from "./shapes.js";
import { listNames, type ResearchSource } from "./source.js";
import { type Freshness, freshness } from "./staleness.js";
import { type BoardRow, type RankPoint, ResearchStore, type SnapshotRow } from "./store.js";

/** What a ranking request gives: the latest snapshot, how fresh it is and how the board moved. */
export interface RankingsResult {
  /** Which source answered (its label). */
  source: string;
  snapshot: RankingSnapshot;
  freshness: Freshness;
  /** Movement since the previous stored snapshot of the board from this source; null when there is none. */
  movement: Movement | null;
  stored: {
    snapshotId: number;
    /** False when this snapshot was already stored (the source has not collected since). */
    added: boolean;
    /** Snapshots of this board from this source now stored. */
    snapshotsOfBoard: number;
  };
}

/** What a book request gives: the detail, how fresh it is, and its ranks on stored boards. */
export interface BookResult {
  source: string;
  detail: BookDetail;
  freshness: Freshness;
  /** The book's ranks in stored snapshots of the same source, newest first. */
  rankHistory: RankPoint[];
}

/** The offline sample, read when no source is configured. */
export function sampleSource(): FileSource {
  return new FileSource({
    dir: SAMPLE_DIR,
    key: "sample",
    label: "the offline sample (examples/research, invented books)",
  });
}

function sourceOf(s: SourceSetting): ResearchSource {
  if (s.kind === "http") {
    return new HttpSource({
      baseUrl: s.baseUrl,
      timeoutMs: s.timeoutMs,
      note: s.fromProject ? "(added by the project's .nbook/config.json)" : undefined,
      setting: `research.http.baseUrl in ${s.fromProject ? "the project's " : ""}.nbook/config.json`,
      ...(s.allowPrivate ? { allowPrivate: s.allowPrivate } : {}),
    });
  }
  return new FileSource({
    dir: s.dir,
    key: `file ${s.dir}`,
    label: `the snapshot files in ${s.shownAs}`,
    confine: s.confine,
  });
}

/**
 * Topic research over the configured sources (asked in order; a source that does not know a
 * platform, board or book passes to the next), keeping every ranking snapshot in the workspace's
 * store so each answer can say how the board moved since the previous one.
 */
export class Research {
  readonly sources: readonly ResearchSource[];
  readonly staleAfterHours: number;
  private readonly workspaceRoot: string;
  private readonly now: () => Date;

  constructor(
    workspaceRoot: string,
    sources: readonly ResearchSource[],
    opts: { staleAfterHours: number; now?: () => Date },
  ) {
    if (sources.length === 0) throw new Error("research needs at least one source");
    this.workspaceRoot = workspaceRoot;
    this.sources = sources;
    this.staleAfterHours = opts.staleAfterHours;
    this.now = opts.now ?? (() => new Date());
  }

  /** Research as configured for a workspace (and project): its sources, else the offline sample. */
  static open(roots: { workspaceRoot: string; projectRoot?: string | null }): Research {
    const settings: ResearchSettings = loadResearchSettings(roots);
    const sources = settings.sources.length ? settings.sources.map(sourceOf) : [sampleSource()];
    return new Research(roots.workspaceRoot, sources, { staleAfterHours: settings.staleAfterHours });
  }

  /** A board's latest snapshot, stored, with its movement since the previous stored one. */
  async rankings(platform: string, board: string, signal?: AbortSignal): Promise<RankingsResult> {
    const { source, value: snapshot } = await this.first(
      (s) => s.rankings(platform, board, signal),
      (store) => knownBoards(store, platform),
    );
    const archive = source.archive ? await source.archive(platform, board) : [];
    const at = this.now();
    const store = ResearchStore.open(this.workspaceRoot);
    try {
      for (const old of archive) store.record(source, old, at, false);
      const { id, added } = store.record(source, snapshot, at, true);
      const previous = store.previous(
        source.key,
        snapshot.platform,
        snapshot.rankTypeKey,
        snapshot.fetchedAt,
      );
      return {
        source: source.label,
        snapshot,
        freshness: freshness(snapshot.fetchedAt, at, this.staleAfterHours),
        movement: previous ? compareSnapshots(previous, snapshot) : null,
        stored: {
          snapshotId: id,
          added,
          snapshotsOfBoard: store.countOf(source.key, snapshot.platform, snapshot.rankTypeKey),
        },
      };
    } finally {
      store.close();
    }
  }

  /** One book's detail, with its freshness and its ranks on stored boards. */
  async book(platform: string, bookId: string, signal?: AbortSignal): Promise<BookResult> {
    const { source, value: detail } = await this.first(
      (s) => s.book(platform, bookId, signal),
      (store) => knownBooks(store, platform),
    );
    const store = ResearchStore.openExisting(this.workspaceRoot);
    let rankHistory: RankPoint[] = [];
    try {
      rankHistory = store ? store.rankHistory(source.key, detail.platform, detail.externalBookId) : [];
    } finally {
      store?.close();
    }
    return {
      source: source.label,
      detail,
      freshness: freshness(detail.fetchedAt, this.now(), this.staleAfterHours, detail.stale),
      rankHistory,
    };
  }

  /**
   * The first source's answer that is not `not_found`. When every source says not_found, one
   * not_found with each source's message, plus what the store knows when a source cannot list.
   */
  private async first<T>(
    ask: (s: ResearchSource) => Promise<T>,
    storeHint: (store: ResearchStore) => string | null,
  ): Promise<{ source: ResearchSource; value: T }> {
    const misses: string[] = [];
    for (const source of this.sources) {
      try {
        return { source, value: await ask(source) };
      } catch (e) {
        if (!(e instanceof NbError) || e.code !== "not_found") throw e;
        misses.push(e.message);
      }
    }
    if (this.sources.some((s) => !s.listsKnown)) {
      const store = ResearchStore.openExisting(this.workspaceRoot);
      try {
        const hint = store ? storeHint(store) : null;
        if (hint) misses.push(hint);
      } finally {
        store?.close();
      }
    }
    throw new NbError("not_found", misses.join("\n"));
  }
}

function knownBoards(store: ResearchStore, platform: string): string | null {
  const all = store.boards();
  const boards = all.filter((b) => b.platform === platform);
  if (boards.length) {
    return `Boards of ${platform} with stored snapshots: ${listNames(boards.map((b) => `${b.board} (${b.boardName})`))}`;
  }
  const platforms = [...new Set(all.map((b) => b.platform))];
  return platforms.length ? `Platforms with stored snapshots: ${listNames(platforms)}` : null;
}

function knownBooks(store: ResearchStore, platform: string): string | null {
  const books = store.booksSeen(platform);
  return books.length
    ? `Books seen on stored ${platform} boards: ${listNames(books.map((b) => `${b.bookId} (${b.title})`))}`
    : null;
}

/** Every board with stored snapshots; empty when nothing was ever fetched. */
export function storedBoards(workspaceRoot: string): BoardRow[] {
  const store = ResearchStore.openExisting(workspaceRoot);
  try {
    return store ? store.boards() : [];
  } finally {
    store?.close();
  }
}

/** The stored snapshots of one board, newest first; `not_found` naming the stored boards when none. */
export function storedSnapshots(workspaceRoot: string, platform: string, board: string): SnapshotRow[] {
  const store = ResearchStore.openExisting(workspaceRoot);
  try {
    const rows = store ? store.snapshotsOf(platform, board) : [];
    if (rows.length === 0) {
      const boards = store ? store.boards().map((b) => `${b.platform}/${b.board}`) : [];
      throw new NbError(
        "not_found",
        `No stored snapshots of ${platform}/${board}. Boards with stored snapshots: ${listNames(boards)}`,
      );
    }
    return rows;
  } finally {
    store?.close();
  }
}
