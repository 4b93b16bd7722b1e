import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import { History } from "../../history/history.js";
import { historyStats, pruneHistory, pushHistory, repairHistory } from "../../history/maintenance.js";
import { blameFile, listChanges, showChange } from "../../history/review.js";
import type { Change } from "../../history/schema.js";
import { parseTime } from "../../history/time.js";
import { locateProject } from "../locate.js";
import { printJson, reportCliError, writeOut } from "../output.js";

interface Opts {
  workspace?: string;
  project?: string;
  json?: boolean;
}

/** The current project's history (a project is needed). */
export function historyOf(o: Opts): History {
  const { project } = locateProject(o, true);
  if (!project) throw new NbError("invalid_input", "No project");
  return History.of(project);
}

/** Who made a change, as a listing shows it. */
export function whoMade(c: Change): string {
  if (c.actor === "agent") return `${c.profile ?? "agent"}${c.session ? ` #${c.session}` : ""}`;
  if (c.actor === "revert")
    return c.session || c.profile ? `revert (${c.profile ?? "agent"})` : "revert (you)";
  return c.actor === "user" ? "you" : c.actor;
}

function changeLine(c: Change): string {
  return `${c.id}  ${c.time.slice(0, 19).replace("T", " ")}  ${whoMade(c).padEnd(22)} ${c.summary}`;
}

/**
 * Run one history command with its options and those of `nbook history` (either may hold
 * --project, --workspace, --json), reporting its errors the way every command does.
 */
function act<T extends Opts>(fn: (o: T) => Promise<void>): (o: T, cmd: Command) => Promise<void> {
  return async (_o, cmd) => {
    const o = cmd.optsWithGlobals<T>();
    try {
      await fn(o);
    } catch (e) {
      reportCliError(e, o.json);
    }
  };
}

const place = (c: Command) =>
  c
    .option("--project <name>", "the project (default: the one the current folder is in)")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print JSON");

/** `nbook history [options]`, and its show, blame, prune, push and repair. */
export function registerHistory(program: Command): void {
  const history = place(
    program
      .command("history")
      .description(
        "Every recorded change to the project, newest first (who, which tool, what); show, blame, prune, push, repair",
      )
      .option("--session <id>", "only changes this session made")
      .option("--turn <entry>", "only changes made in this turn (the entry id of its user message)")
      .option("--path <file>", "only changes to this file")
      .option("--since <time>", "only changes at or after this time (2026-12-01, 2026-12-01T09:30Z)")
      .option("--limit <n>", "at most this many changes", Number)
      .option("--stats", "the history's size instead: changes, repository and index bytes"),
  ).action(
    act(
      async (
        o: Opts & {
          session?: string;
          turn?: string;
          path?: string;
          since?: string;
          limit?: number;
          stats?: boolean;
        },
      ) => {
        if (o.limit !== undefined && !(Number.isInteger(o.limit) && o.limit > 0))
          throw new NbError("invalid_input", "--limit must be a positive integer");
        const h = historyOf(o);
        if (o.stats) {
          const s = await historyStats(h);
          if (o.json) return printJson(s);
          return writeOut(
            `${s.changes} changes (${s.oldest ?? "-"} … ${s.newest ?? "-"}); repository ${s.repositoryBytes} bytes, index ${s.indexBytes} bytes\n`,
          );
        }
        // An edit made outside NeuroBook is shown as the change it is, not left out of the list.
        await h.recordOutside();
        const list = await listChanges(h, {
          ...(o.session !== undefined ? { session: o.session } : {}),
          ...(o.turn !== undefined ? { turn: o.turn } : {}),
          ...(o.path !== undefined ? { path: o.path.replace(/^\.\//, "") } : {}),
          ...(o.since !== undefined ? { since: parseTime(o.since, "--since") } : {}),
          ...(o.limit !== undefined ? { limit: o.limit } : {}),
        });
        if (o.json) return printJson(list);
        writeOut(list.length ? `${list.map(changeLine).join("\n")}\n` : "No recorded changes.\n");
      },
    ),
  );

  place(
    history
      .command("show")
      .description("One change: who made it, its unified diff and its row changes")
      .argument("<id>"),
  ).action(async (id: string, _o: Opts, cmd: Command) => {
    const o = cmd.optsWithGlobals<Opts>();
    try {
      const shown = await showChange(historyOf(o), id);
      if (o.json) return printJson(shown);
      const c = shown.change;
      const lines = [
        changeLine(c),
        `tool: ${c.tool ?? "-"}${c.callId ? ` (call ${c.callId})` : ""}${c.turn ? `, turn ${c.turn}` : ""}`,
      ];
      if (c.reverts) lines.push(`reverts: ${c.reverts.join(", ")}`);
      writeOut(`${lines.join("\n")}\n\n${shown.diff}`);
      for (const r of shown.rows.plot)
        writeOut(
          `${r.op} ${r.name}\n${r.fields.map((f) => `  ${f.field}: ${JSON.stringify(f.before)} → ${JSON.stringify(f.after)}`).join("\n")}\n`,
        );
      for (const sl of shown.rows.world.slices)
        writeOut(
          `slice ${sl.sliceId}${sl.slice ? ` (${sl.slice.op})` : ""}\n${sl.patches.map((p) => `  ${p.op} ${JSON.stringify(p.after ?? p.before)}`).join("\n")}\n`,
        );
    } catch (e) {
      reportCliError(e, o.json);
    }
  });

  place(
    history
      .command("blame")
      .description(
        "Who wrote each line of a file (you, outside edit, import, or the agent), and its words by each",
      )
      .argument("<path>"),
  ).action(async (path: string, _o: Opts, cmd: Command) => {
    const o = cmd.optsWithGlobals<Opts>();
    try {
      const b = await blameFile(historyOf(o), path.replace(/^\.\//, ""));
      if (o.json) return printJson(b);
      const who = (a: (typeof b.lines)[number]["author"]) =>
        a.actor === "agent"
          ? `${a.profile ?? "agent"}${a.session ? ` #${a.session}` : ""}`
          : a.actor === "user"
            ? "you"
            : a.actor;
      const width = Math.max(4, ...b.lines.map((l) => who(l.author).length));
      writeOut(
        b.lines
          .map((l) => `${who(l.author).padEnd(width)} ${String(l.line).padStart(5)}  ${l.text}`)
          .join("\n"),
      );
      const agents = Object.entries(b.words.byProfile).map(([k, n]) => `${k} ${n}`);
      writeOut(
        `\n\nwords: you ${b.words.user}, agents ${b.words.agents}${agents.length ? ` (${agents.join(", ")})` : ""}, outside ${b.words.outside}, import ${b.words.import}\n`,
      );
    } catch (e) {
      reportCliError(e, o.json);
    }
  });

  place(
    history
      .command("prune")
      .description(
        "Forget changes before a time; later changes keep their diffs (size: nbook history --stats)",
      )
      .requiredOption("--before <time>", "forget changes before this time"),
  ).action(
    act(async (o: Opts & { before: string }) => {
      const r = await pruneHistory(historyOf(o), parseTime(o.before, "--before"));
      if (o.json) return printJson(r);
      writeOut(`Pruned ${r.removed} changes.\n`);
    }),
  );

  place(
    history
      .command("push")
      .description("Push the history to a git remote (a URL or a path) as its branch main, for a backup")
      .argument("<remote>")
      .option("--force", "replace the remote's branch (after a prune)"),
  ).action(async (remote: string, _o: Opts, cmd: Command) => {
    const o = cmd.optsWithGlobals<Opts & { force?: boolean }>();
    try {
      const out = await pushHistory(historyOf(o), remote, { force: o.force === true });
      if (o.json) return printJson({ ok: true, output: out });
      writeOut(`${out}\n`);
    } catch (e) {
      reportCliError(e, o.json);
    }
  });

  place(
    history
      .command("repair")
      .description(
        "Make a missing or unreadable history usable again (an unreadable one is moved aside, never deleted)",
      ),
  ).action(
    act(async (o: Opts) => {
      const r = await repairHistory(historyOf(o));
      if (o.json) return printJson(r);
      writeOut(
        r.movedAside
          ? `The history repository was unreadable: moved aside, and a new one started from the project as it is.\n`
          : `The history is readable; its index was rebuilt (${r.changes} changes).\n`,
      );
    }),
  );
}
