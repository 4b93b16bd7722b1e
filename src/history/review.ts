import { z } from "zod";
import { NbError } from "../core/errors.js";
import { countWords } from "../core/text.js";
import { type History, START_TOOL } from "./history.js";
import { RowsOfChangeSchema, rowsOfChange } from "./rows.js";
import { type Change, type ChangeFilter, ChangeSchema } from "./schema.js";

/** A change with what it did: the unified diff of its files and the field diff of its rows. */
export const ChangeShownSchema = z
  .object({ change: ChangeSchema, diff: z.string(), rows: RowsOfChangeSchema })
  .strict();
export type ChangeShown = z.infer<typeof ChangeShownSchema>;

/** Changes newest first (outside edits are recorded first, so the listing shows them). */
export async function listChanges(history: History, filter: ChangeFilter = {}): Promise<Change[]> {
  return history.index.list(filter);
}

/** One change with its diff (`git diff` of its commit against its parent; renames shown as renames). */
export async function showChange(history: History, id: string): Promise<ChangeShown> {
  const change = history.index.get(id);
  let diff = "";
  if (change.commit) {
    const parent = await history.repo.parentOf(change.commit);
    const args = parent
      ? ["diff", "--no-color", "-M", parent, change.commit]
      : ["show", "--no-color", "--format=", change.commit];
    diff = (await history.repo.git.run(args)).stdout.toString("utf8");
  }
  return { change, diff, rows: rowsOfChange(history.project, change.id) };
}

/** Who wrote a line: the kind of actor and, for an agent, its session and profile. */
export const AuthorSchema = z
  .object({
    actor: z.enum(["user", "outside", "import", "agent", "revert", "unknown"]),
    session: z.string().nullable(),
    profile: z.string().nullable(),
    change: z.string().nullable(),
  })
  .strict();
export type Author = z.infer<typeof AuthorSchema>;

export const BlameLineSchema = z
  .object({ line: z.number().int(), text: z.string(), author: AuthorSchema })
  .strict();

/** A file's blame and its words by author: you, agents (by profile), outside edits, imports. */
export const BlameSchema = z
  .object({
    path: z.string(),
    lines: z.array(BlameLineSchema),
    words: z
      .object({
        user: z.number().int(),
        agents: z.number().int(),
        outside: z.number().int(),
        import: z.number().int(),
        byProfile: z.record(z.string(), z.number().int()),
      })
      .strict(),
  })
  .strict();
export type Blame = z.infer<typeof BlameSchema>;

function authorOf(c: Change | undefined): Author {
  if (!c) return { actor: "unknown", session: null, profile: null, change: null };
  return { actor: c.actor, session: c.session, profile: c.profile, change: c.id };
}

/**
 * Each line of a file with who wrote it (`git blame --porcelain`, its commits mapped to changes);
 * outside edits to the file are recorded first, so the blame is of the file as it is now. A line a
 * revert restored is the revert's; its words count for whoever ran the revert.
 */
export async function blameFile(history: History, path: string): Promise<Blame> {
  await history.recordOutside();
  const out = await history.repo.git.run(["blame", "--porcelain", "--", path]).catch((e: unknown) => {
    if (e instanceof NbError && /no such path|no such file/i.test(e.message))
      throw new NbError("not_found", `The history has no file ${path}`);
    throw e;
  });
  const rows: { sha: string; text: string }[] = [];
  let sha = "";
  for (const line of out.stdout.toString("utf8").split("\n")) {
    if (line.startsWith("\t")) rows.push({ sha, text: line.slice(1) });
    else {
      const head = /^([0-9a-f]{40}) \d+ \d+/.exec(line);
      if (head) sha = head[1];
    }
  }
  const changes = history.index.byCommits([...new Set(rows.map((r) => r.sha))]);
  const words = { user: 0, agents: 0, outside: 0, import: 0, byProfile: {} as Record<string, number> };
  const lines = rows.map((r, i) => {
    const author = authorOf(changes.get(r.sha));
    const n = countWords(r.text);
    const kind = wordKind(author);
    if (kind === "agents") {
      const key = author.profile ?? "(agent)";
      words.byProfile[key] = (words.byProfile[key] ?? 0) + n;
    }
    if (kind) words[kind] += n;
    return { line: i + 1, text: r.text, author };
  });
  return { path, lines, words };
}

/** Whose words a line's are: a revert run by an agent counts for agents, else for you. */
function wordKind(a: Author): "user" | "agents" | "outside" | "import" | null {
  const byActor: Record<Author["actor"], "user" | "agents" | "outside" | "import" | null> = {
    user: "user",
    agent: "agents",
    outside: "outside",
    import: "import",
    revert: a.session !== null || a.profile !== null ? "agents" : "user",
    unknown: null,
  };
  return byActor[a.actor];
}

/** Resolve the changes a revert names: ids, a session's, a turn's, or those since a time (newest first). */
export function selectChanges(
  history: History,
  sel: { ids?: readonly string[]; session?: string; turn?: string; since?: string },
): Change[] {
  if (sel.ids?.length) return sel.ids.map((id) => history.index.get(id));
  if (sel.session !== undefined || sel.turn !== undefined || sel.since !== undefined) {
    const list = history.index.list({
      ...(sel.session !== undefined ? { session: sel.session } : {}),
      ...(sel.turn !== undefined ? { turn: sel.turn } : {}),
      ...(sel.since !== undefined ? { since: sel.since } : {}),
    });
    // The project's starting snapshot is not a change anyone made: it is never taken back.
    const taken = list.filter((c) => c.tool !== START_TOOL);
    if (!taken.length) throw new NbError("not_found", "No recorded changes match");
    return taken;
  }
  throw new NbError("invalid_input", "Name the changes to revert: ids, --session N, --turn E or --since T");
}
