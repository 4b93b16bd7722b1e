import { z } from "zod";
import { PLATFORM_KEY, Research } from "../../research/index.js";
import { defineTool } from "../define.js";
import type { AnyTool, ToolContext } from "../types.js";
import { bookText, rankingsText } from "./format.js";

const platform = z
  .string()
  .regex(PLATFORM_KEY, "must be a platform key such as qidian or fanqie")
  .describe("e.g. qidian, fanqie");

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
    "A web-novel board's latest cached snapshot (rank, title, author, id, metrics) and its movement since the last one. Quote its collection time; missing metrics are unknown, never invent them.",
  input: z
    .object({
      platform,
      board: z.string().min(1).max(100).describe("e.g. yuepiao, hotsales, 0_1_1139"),
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
    "One web-novel book's cached detail (status, word count, genres, blurb, ranks); say so when the answer marks it stale.",
  input: z
    .object({
      platform,
      bookId: z.string().min(1).max(100).describe("as novel_rankings lists it"),
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
