import { type Dirent, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { NbError } from "../core/errors.js";
import { readTextSafeSync } from "../workspace/safe-read.js";
import {
  type BookDetail,
  BookDetailSchema,
  PLATFORM_KEY,
  type RankingSnapshot,
  RankingSnapshotSchema,
} from "./shapes.js";
import { assertAnswers, listNames, parseSourceData, type ResearchSource } from "./source.js";

/** The offline sample shipped with nbook, read when no source is configured. */
export const SAMPLE_DIR = fileURLToPath(new URL("../../examples/research/", import.meta.url));

/** A board key or book id that can be a file name; anything else cannot be in a snapshot folder. */
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The largest snapshot file read. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

export interface FileSourceOptions {
  /** Absolute path of the snapshot folder. */
  dir: string;
  key: string;
  label: string;
  /** When set, every file read must really be inside this folder (a project's folder: no symlink out). */
  confine?: string;
}

/**
 * Snapshot files in a folder, so research works offline (docs/research.md):
 * `<platform>/rankings/<board>/<any name>.json` — one ranking snapshot per file, the latest by
 * `fetchedAt` is the board's current one and the others are its archive — and
 * `<platform>/books/<bookId>.json`, one book detail each; all in the service's JSON shapes.
 */
export class FileSource implements ResearchSource {
  readonly key: string;
  readonly label: string;
  readonly listsKnown = true;
  private readonly dir: string;
  private readonly confine?: string;

  constructor(opts: FileSourceOptions) {
    this.dir = opts.dir;
    this.key = opts.key;
    this.label = opts.label;
    this.confine = opts.confine;
  }

  async rankings(platform: string, board: string): Promise<RankingSnapshot> {
    return this.snapshots(platform, board)[0];
  }

  async archive(platform: string, board: string): Promise<RankingSnapshot[]> {
    return this.snapshots(platform, board).slice(1);
  }

  async book(platform: string, bookId: string): Promise<BookDetail> {
    this.requirePlatform(platform);
    const books = join(platform, "books");
    const ids = this.entries(books, "file")
      .filter((f) => f.endsWith(".json"))
      .map((f) => f.slice(0, -5));
    if (!FILE_NAME.test(bookId) || !ids.includes(bookId)) {
      const known = ids.slice(0, 20).map((id) => {
        const title = this.titleOf(join(books, `${id}.json`));
        return title ? `${id} (${title})` : id;
      });
      throw new NbError(
        "not_found",
        `No book ${bookId} on ${platform} in ${this.label}. Books it has: ${listNames(known)}${ids.length > 20 ? ` (${ids.length} in all)` : ""}`,
      );
    }
    const rel = join(books, `${bookId}.json`);
    const where = `${this.label}: ${rel}`;
    const detail = parseSourceData(BookDetailSchema, this.readJson(rel), where);
    assertAnswers(where, `${platform}/${bookId}`, `${detail.platform}/${detail.externalBookId}`);
    return detail;
  }

  /** Every snapshot of a board, newest first by `fetchedAt`. */
  private snapshots(platform: string, board: string): RankingSnapshot[] {
    this.requirePlatform(platform);
    const rankings = join(platform, "rankings");
    const boards = this.entries(rankings, "dir");
    if (!FILE_NAME.test(board) || !boards.includes(board)) {
      const known = boards.map((b) => {
        const name = this.boardName(join(rankings, b));
        return name ? `${b} (${name})` : b;
      });
      throw new NbError(
        "not_found",
        `No board ${board} for ${platform} in ${this.label}. Boards it has: ${listNames(known)}`,
      );
    }
    const folder = join(rankings, board);
    const files = this.entries(folder, "file").filter((f) => f.endsWith(".json"));
    if (files.length === 0) {
      throw new NbError("not_found", `No snapshot files for ${platform}/${board} in ${this.label}`);
    }
    const all = files.map((f) => {
      const rel = join(folder, f);
      const where = `${this.label}: ${rel}`;
      const s = parseSourceData(RankingSnapshotSchema, this.readJson(rel), where);
      assertAnswers(where, `${platform}/${board}`, `${s.platform}/${s.rankTypeKey}`);
      return s;
    });
    return all.sort((a, b) => Date.parse(b.fetchedAt) - Date.parse(a.fetchedAt));
  }

  private requirePlatform(platform: string): void {
    const platforms = this.entries(".", "dir").filter((p) => PLATFORM_KEY.test(p));
    if (!platforms.includes(platform)) {
      throw new NbError(
        "not_found",
        `No platform ${platform} in ${this.label}. Platforms it has: ${listNames(platforms)}`,
      );
    }
  }

  /** The display name of a board, from one of its files (undefined when none is readable). */
  private boardName(folder: string): string | undefined {
    const file = this.entries(folder, "file")
      .filter((f) => f.endsWith(".json"))
      .at(-1);
    if (!file) return undefined;
    try {
      const v = this.readJson(join(folder, file)) as { rankType?: unknown };
      return typeof v?.rankType === "string" ? v.rankType : undefined;
    } catch {
      return undefined;
    }
  }

  private titleOf(rel: string): string | undefined {
    try {
      const v = this.readJson(rel) as { title?: unknown };
      return typeof v?.title === "string" ? v.title : undefined;
    } catch {
      return undefined;
    }
  }

  /** Names of the folders or files in `rel`, sorted; none when it does not exist. */
  private entries(rel: string, kind: "dir" | "file"): string[] {
    let list: Dirent[];
    try {
      list = readdirSync(join(this.dir, rel), { withFileTypes: true });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") {
        // A configured folder that is not there is a setting to fix, not an unknown board.
        if (rel === ".") {
          throw new NbError(
            "config_error",
            `No folder for ${this.label}: check research.dir in .nbook/config.json`,
          );
        }
        return [];
      }
      throw new NbError("io_error", `Cannot list ${this.label}: ${rel}: ${code ?? "error"}`);
    }
    return list
      .filter((e) => {
        // A link counts as what it points to, so a folder of links to snapshot files works.
        const isDir = e.isDirectory() || (e.isSymbolicLink() && this.isDirAt(join(rel, e.name)));
        return kind === "dir" ? isDir : !isDir && !e.name.startsWith(".");
      })
      .map((e) => e.name)
      .sort();
  }

  private isDirAt(rel: string): boolean {
    try {
      return statSync(join(this.dir, rel)).isDirectory();
    } catch {
      return false;
    }
  }

  /**
   * A snapshot file's JSON, through the safe read: a FIFO or a device is refused at once, and in a
   * project's folder (`confine`) so is a link out of the project.
   */
  private readJson(rel: string): unknown {
    const text = readTextSafeSync(join(this.dir, rel), {
      label: `${this.label}: ${rel}`,
      root: this.confine ?? null,
      maxBytes: MAX_FILE_BYTES,
    });
    if (text === null) throw new NbError("not_found", `${this.label}: ${rel} is missing`);
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new NbError("io_error", `${this.label}: ${rel} is not valid JSON: ${(e as Error).message}`);
    }
  }
}
