import type Database from "better-sqlite3";
import { openVersionedDb } from "../core/sqlite.js";
import { countWords } from "../core/text.js";
import type { History } from "../history/history.js";
import { listChanges, showChange } from "../history/review.js";
import type { Change } from "../history/schema.js";
import type { Project } from "../workspace/project.js";

/** Who wrote: the author (in the workbench, the CLI or another editor) or an agent. */
export type Writer = "you" | "agents";

/** Words one change added to and removed from the manuscript's Markdown, counted once and kept. */
interface Delta {
  added: number;
  removed: number;
}

export interface DayWords {
  /** The local calendar day, YYYY-MM-DD. */
  day: string;
  you: Delta;
  agents: Delta;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS word_deltas (
  change_id TEXT PRIMARY KEY,
  added INTEGER NOT NULL,
  removed INTEGER NOT NULL
) WITHOUT ROWID;
`;

/** Changes looked at per log at most (about a month of heavy use). */
const MAX_CHANGES = 5000;

/**
 * Imports and reverts are not writing; everything else is, by who made it: the author (also as
 * "outside edits", made in another editor) or an agent.
 */
function writerOf(c: Change): Writer | null {
  if (c.actor === "agent") return "agents";
  if (c.actor === "user" || c.actor === "outside") return "you";
  return null;
}

/** Words on the added and removed lines of a unified diff, in manuscript/ Markdown files only. */
export function diffWords(diff: string): Delta {
  let inManuscript = false;
  let added = 0;
  let removed = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("diff --git ")) {
      inManuscript = / b\/manuscript\/.*\.md$/i.test(line);
      continue;
    }
    if (!inManuscript || line.startsWith("+++ ") || line.startsWith("--- ")) continue;
    if (line.startsWith("+")) added += countWords(line.slice(1));
    else if (line.startsWith("-")) removed += countWords(line.slice(1));
  }
  return { added, removed };
}

/** YYYY-MM-DD of an ISO time in this machine's time zone (the author's day, not UTC's). */
export function localDay(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function openLog(project: Project): Database.Database {
  return project.resource("word-log", () =>
    openVersionedDb({
      what: "the word log",
      file: `${project.root}/.nbook/word-log.sqlite`,
      version: 1,
      sql: SCHEMA,
    }),
  );
}

/**
 * Words written per local day over the last `days` days, by you and by agents, from the history's
 * changes to manuscript/ (the first commit, the project as the history found it, counts nothing). A change's count is kept by its id (a change never changes), so a log
 * costs one diff per change not seen before.
 */
export async function wordLog(
  project: Project,
  history: History,
  days: number,
  now = new Date(),
): Promise<DayWords[]> {
  const since = new Date(now);
  since.setHours(0, 0, 0, 0);
  since.setDate(since.getDate() - (days - 1));
  const changes = (await listChanges(history, { since: since.toISOString(), limit: MAX_CHANGES })).filter(
    (c) => writerOf(c) && c.commit && (c.targets ?? []).some((t) => t.startsWith("manuscript/")),
  );
  const db = openLog(project);
  const get = db.prepare<[string], Delta>("SELECT added, removed FROM word_deltas WHERE change_id = ?");
  const put = db.prepare("INSERT OR REPLACE INTO word_deltas (change_id, added, removed) VALUES (?, ?, ?)");
  const byDay = new Map<string, DayWords>();
  for (const c of changes) {
    let delta = get.get(c.id);
    if (!delta) {
      // The history's first commit is the project as it was found (the baseline), not writing.
      const baseline = (await history.repo.parentOf(c.commit!)) === null;
      delta = baseline ? { added: 0, removed: 0 } : diffWords((await showChange(history, c.id)).diff);
      put.run(c.id, delta.added, delta.removed);
    }
    const day = localDay(c.time);
    const entry = byDay.get(day) ?? { day, you: { added: 0, removed: 0 }, agents: { added: 0, removed: 0 } };
    const who = entry[writerOf(c)!];
    who.added += delta.added;
    who.removed += delta.removed;
    byDay.set(day, entry);
  }
  const out: DayWords[] = [];
  for (let i = days - 1; i >= 0; i--) {
    const d = new Date(now);
    d.setDate(d.getDate() - i);
    const day = localDay(d.toISOString());
    out.push(byDay.get(day) ?? { day, you: { added: 0, removed: 0 }, agents: { added: 0, removed: 0 } });
  }
  return out;
}
