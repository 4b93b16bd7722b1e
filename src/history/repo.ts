import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { NbError } from "../core/errors.js";
import { GitRepo, IDENTITY } from "./git.js";
import {
  type ObjectType,
  type RefUpdate,
  readLooseObject,
  readRef,
  updateRef,
  writeObject,
} from "./objects.js";
import { HeadTree, type TreeFile } from "./tree.js";
import type { FileContent } from "./worktree.js";

const BRANCH = "refs/heads/main";

/**
 * What the history never holds: NeuroBook's control area (its databases, this repository), any
 * `.git` of the user's (never read or written through this repository), and the temp files of
 * atomic writes in flight.
 */
const EXCLUDES = ["/.nbook/", ".git", ".git/", ".*.????????????.tmp", ""].join("\n");

/** Git's mark for "no object": an absent file in a raw diff. */
const NULL_SHA = /^0+$/;

/** A retry for the moments another process holds the branch's lock. */
const LOCK_RETRIES = 20;
const LOCK_WAIT_MS = 25;

/** One file a commit changed: its blob before and after (null: absent). */
export interface FileDelta {
  path: string;
  before: string | null;
  after: string | null;
}

/**
 * The project's history repository: init on first use, commit files (written in-process as git
 * objects), read blobs and diffs through git. Its operations run one at a time in this process;
 * another process's commit is seen through the ref.
 */
export class HistoryRepo {
  readonly git: GitRepo;
  private queue: Promise<unknown> = Promise.resolve();
  private cached: { head: string | null; tree: HeadTree } | null = null;

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

  /** Create the repository (idempotent) and its exclusions; its settings come with every git run (GitRepo). */
  async init(): Promise<void> {
    if (!this.exists()) {
      await mkdir(this.gitDir, { recursive: true });
      // No template: git's sample hooks and description have no use here.
      await this.git.run(["init", "--quiet", "--template=", "--initial-branch=main"]);
    }
    await mkdir(join(this.gitDir, "info"), { recursive: true });
    await writeFile(join(this.gitDir, "info", "exclude"), EXCLUDES);
  }

  /** The commit the history is at, or null before the first one (read from the ref, no git run). */
  async head(): Promise<string | null> {
    return readRef(this.gitDir, BRANCH);
  }

  /**
   * The head's tree, read once with `ls-tree` and kept by this process's commits; read again
   * when another process moved the head.
   */
  private async treeAt(head: string | null): Promise<HeadTree> {
    if (this.cached?.head === head) return this.cached.tree;
    let tree = HeadTree.empty();
    if (head !== null) {
      tree = HeadTree.fromListing(await this.git.text(["ls-tree", "-r", "-t", "-z", "--full-tree", head]));
    }
    this.cached = { head, tree };
    return tree;
  }

  /** The head's tree (this process's copy: read it, never change it). */
  async headTree(): Promise<HeadTree> {
    return this.treeAt(await this.head());
  }

  /**
   * Commit these files (content and mode; null: removed) on the head with this message, building
   * the objects in-process against the cached head tree, so the cost is that of the change, not
   * of the project. The ref moves last and only from the head the commit was built on: a crash
   * leaves the history as it was (objects nothing points at) or with the whole commit. Returns
   * the commit and the paths it changed, or null when nothing differs (`empty`: commit anyway,
   * for the first commit of an empty project).
   */
  async commitFiles(
    files: ReadonlyMap<string, FileContent | null>,
    message: string,
    empty = false,
  ): Promise<{ commit: string; paths: string[] } | null> {
    const put = (type: ObjectType, data: Buffer, id?: string) => writeObject(this.gitDir, type, data, id);
    const blobs = new Map<string, TreeFile | null>();
    for (const [path, file] of files)
      blobs.set(path, file && { mode: file.mode, sha: put("blob", file.data, file.sha) });
    for (let attempt = 0; ; attempt++) {
      const parent = await this.head();
      const tree = await this.treeAt(parent);
      const paths: string[] = [];
      let commit: string;
      let moved: RefUpdate;
      try {
        for (const [path, file] of blobs) if (tree.set(path, file)) paths.push(path);
        if (paths.length === 0 && !(empty && parent === null)) return null;
        const root = tree.write(put);
        const stamp = `${IDENTITY.name} <${IDENTITY.email}> ${Math.floor(Date.now() / 1000)} +0000`;
        commit = put(
          "commit",
          Buffer.from(
            `tree ${root}\n${parent ? `parent ${parent}\n` : ""}author ${stamp}\ncommitter ${stamp}\n\n${message}`,
          ),
        );
        moved = updateRef(this.gitDir, BRANCH, commit, parent);
      } catch (e) {
        // The cached tree already holds this change, which the head does not: read it again.
        this.cached = null;
        throw e;
      }
      if (moved === "done") {
        this.cached = { head: commit, tree };
        return { commit, paths };
      }
      // The tree now holds this change on a head that is no longer the head: read the new one.
      this.cached = null;
      if (attempt >= LOCK_RETRIES)
        throw new NbError("io_error", "The history's branch stayed locked by another process");
      if (moved === "locked") await new Promise((r) => setTimeout(r, LOCK_WAIT_MS));
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
    // A commit still loose (every commit since the last prune) is read in-process; a packed one through git.
    const loose = /^[0-9a-f]{40}$/.test(commit) ? readLooseObject(this.gitDir, commit) : null;
    if (loose?.type === "commit")
      return /^parent ([0-9a-f]{40})$/m.exec(loose.data.toString("utf8").split("\n\n")[0])?.[1] ?? null;
    const out = await this.git.text(["rev-list", "--parents", "-n", "1", commit]);
    return out.split(" ")[1] ?? null;
  }
}
