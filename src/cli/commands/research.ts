import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import { type BoardRow, type SnapshotRow, storedBoards, storedSnapshots } from "../../research/index.js";
import { formatInstant } from "../../tools/research/format.js";
import { openCliContext } from "../context.js";
import { locateProject } from "../locate.js";
import { printJson, reportCliError, writeOut } from "../output.js";
import { runCliToolCall } from "../tool-call.js";

interface ResearchOptions {
  workspace?: string;
  project?: string;
  json?: boolean;
}

function common(cmd: Command): Command {
  return cmd
    .option("--workspace <dir>", "workspace root")
    .option(
      "--project <name>",
      "project whose .nbook/config.json adds research sources (default: the one you are in)",
    )
    .option("--json", "print exactly one JSON object");
}

/** Run one research tool through the dispatch every agent uses, as the trusted user. */
async function callTool(key: string, input: Record<string, string>, o: ResearchOptions): Promise<void> {
  let close = () => {};
  try {
    const ctx = openCliContext(o);
    close = () => ctx.workspace.close();
    await runCliToolCall(ctx, { key, input }, { mode: "normal", approved: false, json: o.json });
  } catch (e) {
    reportCliError(e, o.json);
  } finally {
    close();
  }
}

function boardLine(b: BoardRow): string {
  // The display name goes last: CJK names are two columns wide per character, so no padding fits.
  return [
    `${b.platform}/${b.board}`.padEnd(24),
    `${b.snapshots} snapshot${b.snapshots === 1 ? "" : "s"}`.padEnd(13),
    `latest collected ${formatInstant(b.latestFetchedAt)}`,
    b.boardName,
  ].join("  ");
}

function snapshotLine(s: SnapshotRow): string {
  const asked =
    s.retrievals === 0
      ? "kept from the source's archive"
      : `asked ${s.retrievals} time${s.retrievals === 1 ? "" : "s"}, last ${formatInstant(s.lastRetrievedAt)}`;
  return `#${s.id}  collected ${formatInstant(s.fetchedAt)}  ${s.items} books  ${asked}  — from ${s.source}`;
}

function listSnapshots(platform: string | undefined, board: string | undefined, o: ResearchOptions): void {
  try {
    if (platform !== undefined && board === undefined) {
      throw new NbError(
        "invalid_input",
        "Give both a platform and a board (or neither, to list every board)",
      );
    }
    const { workspace } = locateProject({ workspace: o.workspace });
    if (platform !== undefined && board !== undefined) {
      const rows = storedSnapshots(workspace.root, platform, board);
      if (o.json) printJson({ platform, board, snapshots: rows });
      else {
        const lines = rows.map(snapshotLine);
        writeOut(
          `${rows[0].boardName} (${platform}/${board}): ${rows.length} stored snapshot${rows.length === 1 ? "" : "s"}, newest first\n${lines.join("\n")}\n`,
        );
      }
      return;
    }
    const boards = storedBoards(workspace.root);
    if (o.json) printJson({ boards });
    else if (boards.length === 0) {
      writeOut(
        "No ranking snapshots stored yet. `nbook research rankings <platform> <board>` fetches one (with no source configured, the offline sample has qidian yuepiao and fanqie 0_1_1139).\n",
      );
    } else writeOut(`${boards.map(boardLine).join("\n")}\n`);
  } catch (e) {
    reportCliError(e, o.json);
  }
}

/** `nbook research rankings|book|snapshots`: topic research from the terminal (docs/research.md). */
export function registerResearch(program: Command): void {
  const research = program
    .command("research")
    .description(
      "Web-novel ranking snapshots and book details (novel_rankings, novel_book_detail), and the stored snapshot history",
    );
  common(
    research
      .command("rankings")
      .description(
        "A board's latest snapshot with rank movement since the previous stored one (stores the snapshot)",
      )
      .argument("<platform>", "platform key, e.g. qidian or fanqie")
      .argument("<board>", "board key, e.g. yuepiao or 0_1_1139"),
  ).action((platform: string, board: string, o: ResearchOptions) =>
    callTool("novel_rankings", { platform, board }, o),
  );
  common(
    research
      .command("book")
      .description("One book's detail, whether it is stale, and its ranks in stored snapshots")
      .argument("<platform>", "platform key, e.g. qidian or fanqie")
      .argument("<id>", "the platform's book id, as `research rankings` lists it"),
  ).action((platform: string, id: string, o: ResearchOptions) =>
    callTool("novel_book_detail", { platform, bookId: id }, o),
  );
  research
    .command("snapshots")
    .description("List the boards with stored snapshots, or every stored snapshot of one board")
    .argument("[platform]", "platform key")
    .argument("[board]", "board key")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print exactly one JSON object")
    .action((platform: string | undefined, board: string | undefined, o: ResearchOptions) =>
      listSnapshots(platform, board, o),
    );
}
