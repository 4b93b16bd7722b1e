import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { NbError } from "../core/errors.js";
import { GitRepo } from "./git.js";

const BRANCH = "refs/heads/main";

/**
 * What the history never holds: NeuroBook's control area (its databases, this repository), any
 * `.git` of the user's (never read or written through this repository), and the temp files of
 * atomic writes in flight.
 */
const EXCLUDES = ["/.nbook/", ".git", ".git/", ".*.????????????.tmp", ""].join("\n");

/** Git's mark for "no object": an absent file in a raw diff. */
const NULL_SHA = /^0+$/;

/** A retry for the moments another process holds the index lock. */
const LOCK_RETRIES = 20;
const LOCK_WAIT_MS = 25;

/** One file a commit changed: its blob before and after (null: absent). */
export interface FileDelta {
  path: string;
  before: string | null;
  after: string | null;
}

/**
 * The project's history repository: init on first use, commit a set of paths (or everything),
 * read blobs and diffs. Every git call of one repository runs one at a time in this process, and
 * waits out another process's index lock.
 */
export class HistoryRepo {
  readonly git: GitRepo;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly trees = new Map<string, string>();

  constructor(
    readonly gitDir: string,
    readonly workTree: string,
  ) {
    this.git = new GitRepo(gitDir, workTree);
  }

  /** True once the repository has been created. */
  exists(): boolean {
    return existsSync(join(this.gitDir, "HEAD"));
  }

  /** Run `fn` after every git operation queued before it. */
  serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Create the repository (idempotent): its exclusions and the settings that keep scans cheap. */
  async init(): Promise<void> {
    if (!this.exists()) {
      await mkdir(this.gitDir, { recursive: true });
      await this.git.run(["init", "--quiet", `--initial-branch=main`]);
    }
    await mkdir(join(this.gitDir, "info"), { recursive: true });
    await writeFile(join(this.gitDir, "info", "exclude"), EXCLUDES);
    const settings: [string, string][] = [
      ["core.untrackedCache", "true"],
      ["core.autocrlf", "false"],
      ["core.quotePath", "false"],
      ["core.fsmonitor", "false"],
      ["gc.auto", "0"],
      ["commit.gpgSign", "false"],
    ];
    for (const [k, v] of settings) await this.git.run(["config", k, v]);
  }

  /** The commit the history is at, or null before the first one (read from the ref, no git run). */
  async head(): Promise<string | null> {
    const loose = await readFile(join(this.gitDir, BRANCH), "utf8").catch(() => null);
    if (loose !== null) return loose.trim() || null;
    const packed = await readFile(join(this.gitDir, "packed-refs"), "utf8").catch(() => "");
    const line = packed.split("\n").find((l) => l.endsWith(` ${BRANCH}`));
    return line ? line.split(" ")[0] : null;
  }

  private async treeOf(commit: string): Promise<string> {
    const known = this.trees.get(commit);
    if (known) return known;
    const tree = await this.git.text(["rev-parse", `${commit}^{tree}`]);
    this.trees.set(commit, tree);
    return tree;
  }

  /** Run git, waiting while another process holds the index lock. */
  private async locked(args: readonly string[], input?: string, raw = false): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      try {
        const out = await this.git.run(args, input === undefined ? {} : { input });
        const text = out.stdout.toString("utf8");
        return raw ? text : text.trim();
      } catch (e) {
        const busy = e instanceof NbError && /index\.lock|cannot lock ref/i.test(e.message);
        if (!busy || attempt >= LOCK_RETRIES) throw e;
        await new Promise((r) => setTimeout(r, LOCK_WAIT_MS));
      }
    }
  }

  /** Paths changed in the work tree since the last commit, limited to `paths` (all when null). */
  async dirty(paths: readonly string[] | null, excluding: readonly string[] = []): Promise<string[]> {
    const spec = paths === null ? pathspecAll(excluding) : paths.map(literal);
    if (spec.length === 0) return [];
    const out = await this.locked(
      ["status", "--porcelain=v1", "-z", "-uall", "--no-renames", "--", ...spec],
      undefined,
      true,
    );
    return out
      .split("\0")
      .filter((e) => e.length > 3)
      .map((e) => e.slice(3));
  }

  /**
   * Commit the current content of `paths` (every path when null, less `excluding`) with this
   * message. Returns the commit and the paths it changed, or null when nothing differs.
   */
  async commit(
    paths: readonly string[] | null,
    message: string,
    excluding: readonly string[] = [],
  ): Promise<{ commit: string; paths: string[] } | null> {
    if (paths !== null && paths.length === 0) return null;
    if (paths === null) await this.locked(["add", "-A", "--", ...pathspecAll(excluding)]);
    else await this.locked(["update-index", "--add", "--remove", "-z", "--stdin"], `${paths.join("\0")}\0`);
    const tree = await this.locked(["write-tree"]);
    for (let attempt = 0; ; attempt++) {
      const parent = await this.head();
      if (parent && (await this.treeOf(parent)) === tree) return null;
      const commit = await this.git.text(
        ["commit-tree", tree, ...(parent ? ["-p", parent] : []), "-F", "-"],
        {
          input: message,
        },
      );
      try {
        await this.git.run(["update-ref", BRANCH, commit, parent ?? ""]);
      } catch (e) {
        // Another process moved the history meanwhile: commit the same tree on its new head.
        if (attempt >= LOCK_RETRIES) throw e;
        continue;
      }
      this.trees.set(commit, tree);
      const changed = paths === null || !parent ? await this.changedPaths(parent, commit) : [...paths];
      return { commit, paths: changed };
    }
  }

  /** The paths that differ between two commits (all of `to`'s when `from` is null). */
  async changedPaths(from: string | null, to: string): Promise<string[]> {
    return (await this.deltas(from, to)).map((d) => d.path);
  }

  /** What each file changed from `from` to `to` (no rename detection: a rename is a delete and an add). */
  async deltas(from: string | null, to: string): Promise<FileDelta[]> {
    const args = from
      ? ["diff-tree", "-r", "-z", "--no-renames", "--raw", from, to]
      : ["diff-tree", "-r", "-z", "--no-renames", "--raw", "--root", to];
    const out = await this.git.text(args);
    const parts = out.split("\0").filter((p) => p !== "");
    const deltas: FileDelta[] = [];
    for (let i = 0; i < parts.length; i += 2) {
      const meta = parts[i].replace(/^:/, "").split(" ");
      if (meta.length < 5) {
        // `--root` prints the commit first.
        i -= 1;
        continue;
      }
      const [, , before, after] = meta;
      deltas.push({
        path: parts[i + 1],
        before: NULL_SHA.test(before) ? null : before,
        after: NULL_SHA.test(after) ? null : after,
      });
    }
    return deltas;
  }

  /** The content of these blobs (one git run for all). */
  async blobs(shas: readonly string[]): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    const want = [...new Set(shas)];
    if (want.length === 0) return out;
    const buf = (await this.git.run(["cat-file", "--batch"], { input: `${want.join("\n")}\n` })).stdout;
    let at = 0;
    for (const sha of want) {
      const nl = buf.indexOf(10, at);
      const header = buf.subarray(at, nl).toString("utf8").split(" ");
      if (header[1] === "missing") throw new NbError("not_found", `The history has no object ${sha}`);
      const size = Number(header[2]);
      out.set(sha, buf.subarray(nl + 1, nl + 1 + size));
      at = nl + 1 + size + 1;
    }
    return out;
  }

  /** The parent of a commit, or null for the first. */
  async parentOf(commit: string): Promise<string | null> {
    const out = await this.git.text(["rev-list", "--parents", "-n", "1", commit]);
    return out.split(" ")[1] ?? null;
  }
}

/** A path for git, taken literally (no glob, no magic). */
function literal(path: string): string {
  return `:(literal)${path}`;
}

/** Every path of the work tree, less these. */
function pathspecAll(excluding: readonly string[]): string[] {
  return [".", ...excluding.map((p) => `:(exclude,literal)${p}`)];
}
