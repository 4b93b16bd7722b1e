import { existsSync, rmSync } from "node:fs";
import { readdir, rename, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { z } from "zod";
import { NbError } from "../core/errors.js";
import { type History, START_TOOL } from "./history.js";
import { newChangeId } from "./ids.js";
import { parseCommitMessage } from "./message.js";

/** What `nbook history --stats` reports. */
export const HistoryStatsSchema = z
  .object({
    changes: z.number().int(),
    oldest: z.string().nullable(),
    newest: z.string().nullable(),
    /** Bytes on disk of the repository and of the change index. */
    repositoryBytes: z.number().int(),
    indexBytes: z.number().int(),
  })
  .strict();
export type HistoryStats = z.infer<typeof HistoryStatsSchema>;

async function sizeOf(path: string): Promise<number> {
  const st = await stat(path).catch(() => null);
  if (!st) return 0;
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const name of await readdir(path)) total += await sizeOf(join(path, name));
  return total;
}

function indexFile(history: History): string {
  return join(history.project.root, ".nbook", "history.sqlite");
}

export async function historyStats(history: History): Promise<HistoryStats> {
  await history.open();
  const s = history.index.stats();
  const file = indexFile(history);
  const indexBytes = (await sizeOf(file)) + (await sizeOf(`${file}-wal`)) + (await sizeOf(`${file}-shm`));
  return { ...s, repositoryBytes: await sizeOf(history.repo.gitDir), indexBytes };
}

/**
 * Forget what happened before `before`: the history then starts with one change holding the
 * project as it was at that time; every later change keeps its diff (its commit is re-made on the
 * new start) and its id. Objects no longer reachable are removed. Returns how many went.
 */
export async function pruneHistory(history: History, before: string): Promise<{ removed: number }> {
  await history.open();
  return history.repo.serial(async () => {
    const all = history.index.list().reverse();
    const old = all.filter((c) => c.time < before && c.commit !== null);
    const kept = all.filter((c) => c.time >= before);
    if (old.length === 0) return { removed: 0 };
    const git = history.repo.git;
    const base = old[old.length - 1].commit as string;
    const tree = await git.text(["rev-parse", `${base}^{tree}`]);
    const root = await git.text(["commit-tree", tree, "-F", "-"], {
      input: `The project as it was on ${before} (history before it pruned)\n`,
    });
    let parent = root;
    const remap = new Map<string, string>();
    for (const c of kept) {
      if (!c.commit) continue;
      const [t, msg] = await Promise.all([
        git.text(["rev-parse", `${c.commit}^{tree}`]),
        git.run(["log", "-1", "--format=%B", c.commit]).then((o) => o.stdout),
      ]);
      parent = await git.text(["commit-tree", t, "-p", parent, "-F", "-"], { input: msg });
      remap.set(c.commit, parent);
    }
    await git.run(["update-ref", "refs/heads/main", parent]);
    history.index.transaction(() => {
      history.index.removeBefore(before);
      history.index.add(
        {
          id: newChangeId(Date.parse(before) - 1),
          time: new Date(Date.parse(before) - 1).toISOString(),
          actor: "outside",
          session: null,
          profile: null,
          tool: START_TOOL,
          callId: null,
          turn: null,
          targets: [],
          summary: `The project as it was on ${before} (history before it pruned)`,
          commit: root,
          reverts: null,
        },
        true,
      );
      for (const [from, to] of remap) history.index.recommit(from, to);
    });
    await git.run(["reflog", "expire", "--expire=now", "--all"]);
    await git.run(["gc", "--prune=now", "--quiet"]);
    return { removed: all.length - kept.length };
  });
}

/** Push the history to a git remote (a URL or a path) as its branch `main`, for an off-machine copy. */
export async function pushHistory(
  history: History,
  remote: string,
  opts: { force?: boolean } = {},
): Promise<string> {
  if (remote.startsWith("-")) throw new NbError("invalid_input", "The remote must be a URL or a path");
  await history.open();
  const out = await history.repo.git.run([
    "push",
    "--porcelain",
    remote,
    `${opts.force ? "+" : ""}refs/heads/main:refs/heads/main`,
  ]);
  return out.stdout.toString("utf8").trim();
}

/** What `nbook history repair` did. */
export const RepairReportSchema = z
  .object({
    /** The repository was unreadable: it was moved aside (its new project-relative name) and started afresh. */
    movedAside: z.string().nullable(),
    /** Changes the index holds after rebuilding it from the commits. */
    changes: z.number().int(),
  })
  .strict();
export type RepairReport = z.infer<typeof RepairReportSchema>;

/**
 * Make the history usable again. A repository git cannot read (`git fsck` fails, HEAD gone) is
 * moved aside, never deleted, and a new one starts from the project as it is; the change index is
 * rebuilt from the commits' messages (their trailers carry each change's row).
 */
export async function repairHistory(history: History): Promise<RepairReport> {
  const repo = history.repo;
  let movedAside: string | null = null;
  const healthy =
    repo.exists() &&
    (await repo.git.run(["fsck", "--no-dangling", "--no-progress"]).then(
      () => true,
      () => false,
    ));
  history.reset();
  // The branch's lock of a process that died while recording would refuse every later record.
  rmSync(join(repo.gitDir, "refs", "heads", "main.lock"), { force: true });
  if (!healthy && existsSync(repo.gitDir)) {
    const aside = `${repo.gitDir}.broken-${Date.now()}`;
    await rename(repo.gitDir, aside);
    movedAside = `.nbook/${basename(aside)}`;
  }
  const file = indexFile(history);
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  const fresh = history;
  await fresh.open();
  if (healthy) {
    const log = (
      await fresh.repo.git.run(["log", "--reverse", "--no-renames", "--name-only", "--format=%x01%H%n%B%x02"])
    ).stdout.toString("utf8");
    fresh.index.transaction(() => {
      fresh.index.clear();
      for (const block of log.split("\x01").slice(1)) {
        const [head, names = ""] = block.split("\x02");
        const nl = head.indexOf("\n");
        const commit = head.slice(0, nl);
        const paths = names.split("\n").filter((p) => p !== "");
        const change = parseCommitMessage(head.slice(nl + 1), commit, paths);
        if (change) fresh.index.add(change);
      }
    });
  }
  return { movedAside, changes: fresh.index.stats().changes };
}
