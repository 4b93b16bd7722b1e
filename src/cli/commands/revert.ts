import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import type { RevertConflict } from "../../history/revert.js";
import { revertChanges } from "../../history/revert.js";
import { selectChanges } from "../../history/review.js";
import { parseTime } from "../../history/time.js";
import { printJson, reportCliError, writeErr, writeOut } from "../output.js";
import { historyOf } from "./history.js";

interface Opts {
  workspace?: string;
  project?: string;
  session?: string;
  turn?: string;
  since?: string;
  json?: boolean;
}

/** Both versions of each conflicting file, for the user to choose from. */
function conflictText(conflicts: RevertConflict[]): string {
  return conflicts
    .map(
      (k) =>
        `--- ${k.path}: ${k.why} (change ${k.change})\n` +
        (k.merged !== undefined
          ? k.merged
          : `=== now ===\n${k.current ?? "(absent)"}\n=== before the change ===\n${k.before ?? "(absent)"}\n`),
    )
    .join("\n");
}

/** `nbook revert <id…> | --session N | --turn E | --since T`. */
export function registerRevert(program: Command): void {
  program
    .command("revert")
    .description(
      "Take back recorded changes (ids, a session's, a turn's, or those since a time): later edits to other lines survive; a conflict changes nothing",
    )
    .argument("[ids...]", "change ids (see nbook history)")
    .option("--session <id>", "every change this session made")
    .option("--turn <entry>", "every change made in this turn (the entry id of its user message)")
    .option("--since <time>", "every change at or after this time")
    .option("--project <name>", "the project (default: the one the current folder is in)")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print JSON")
    .action(async (ids: string[], o: Opts) => {
      try {
        const h = historyOf(o);
        await h.open();
        const changes = selectChanges(h, {
          ids,
          ...(o.session !== undefined ? { session: o.session } : {}),
          ...(o.turn !== undefined ? { turn: o.turn } : {}),
          ...(o.since !== undefined ? { since: parseTime(o.since, "--since") } : {}),
        });
        const made = await revertChanges(h, changes, {});
        if (o.json) return printJson({ ok: true, change: made });
        writeOut(
          made
            ? `Reverted ${changes.map((c) => c.id).join(", ")} as change ${made.id}.\n`
            : "Nothing to revert: those changes are already undone.\n",
        );
      } catch (e) {
        const conflicts =
          e instanceof NbError && e.code === "conflict"
            ? (e.details as { conflicts?: RevertConflict[] })?.conflicts
            : undefined;
        if (conflicts && !o.json) writeErr(conflictText(conflicts));
        reportCliError(e, o.json);
      }
    });
}
