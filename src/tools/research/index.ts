import { z } from "zod";
import { PLATFORM_KEY, Research } from "../../research/index.js";
import { defineTool } from "../define.js";
import type { AnyTool, ToolContext } from "../types.js";
import { bookText, rankingsText } from "./format.js";

const platform = z
  .string()
  .regex(PLATFORM_KEY, "must be a platform key such as qidian or fanqie")
  .describe("Platform key, e.g. qidian or fanqie");

/** Research as configured for the call's workspace and project. */
function researchFor(ctx: ToolContext): Research {
  return Research.open({ workspaceRoot: ctx.workspace.root, projectRoot: ctx.project?.root ?? null });
}

// Effect "read": the only thing these tools write is the workspace's snapshot store
// (.nbook/research.sqlite), a record of outside data in the control area that no project file,
// world or plot depends on. Read-only modes guard the novel, so research stays available in them.

export const novelRankingsTool = defineTool({
  key: "novel_rankings",
  group: "research",
  description:
    "The latest ranking snapshot of a web-novel platform's board (e.g. qidian yuepiao, the monthly-ticket board; fanqie boards have machine keys such as 0_1_1139), with each book's rank, title, author, id and metrics, and how the board moved since the previous stored snapshot (new entries, climbers, fallers, dropped). It is a cached snapshot, not live data: quote its collection time, and say so when it is stale. Metrics that are missing are unknown (Qidian's rankings carry none): never invent numbers. Each snapshot is kept in the workspace's research store. An unknown platform or board is answered with the ones the source has.",
  input: z
    .object({
      platform,
      board: z
        .string()
        .min(1)
        .max(100)
        .describe("Board key, e.g. yuepiao, hotsales, recom, collect, 0_1_1139"),
    })
    .strict(),
  effect: "read",
  execute: async (input, ctx) => {
    const r = await researchFor(ctx).rankings(input.platform, input.board, ctx.signal);
    return {
      text: rankingsText(r),
      details: {
        source: r.source,
        platform: r.snapshot.platform,
        board: r.snapshot.rankTypeKey,
        boardName: r.snapshot.rankType,
        fetchedAt: r.snapshot.fetchedAt,
        stale: r.freshness.stale,
        freshness: r.freshness,
        movement: r.movement,
        stored: r.stored,
        snapshot: r.snapshot,
      },
    };
  },
});

export const novelBookDetailTool = defineTool({
  key: "novel_book_detail",
  group: "research",
  description:
    "One book's detail from a web-novel platform: title, author, status, word count, genres, description, when it was collected, and its ranks in stored ranking snapshots. bookId is the platform's own id (the id novel_rankings lists). The answer says when the data is stale (the source's refresh failed, or it is older than the workspace's limit): then say it may be out of date.",
  input: z
    .object({
      platform,
      bookId: z.string().min(1).max(100).describe("The platform's book id, as novel_rankings lists it"),
    })
    .strict(),
  effect: "read",
  execute: async (input, ctx) => {
    const r = await researchFor(ctx).book(input.platform, input.bookId, ctx.signal);
    return {
      text: bookText(r),
      details: {
        source: r.source,
        stale: r.freshness.stale,
        freshness: r.freshness,
        rankHistory: r.rankHistory,
        book: r.detail,
      },
    };
  },
});

/** The topic research tools. */
export const researchTools: readonly AnyTool[] = [novelRankingsTool, novelBookDetailTool];
