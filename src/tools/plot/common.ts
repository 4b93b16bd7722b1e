import { NbError } from "../../core/errors.js";
import { openPlotContext, type PlotContext } from "../../plot/index.js";
import type { Page } from "../../plot/paging.js";
import type { ToolContext, ToolResult } from "../types.js";

/** The plot context of the call's project, acting as the calling profile (or the user). */
export function plotFor(ctx: ToolContext): Promise<PlotContext> {
  if (!ctx.project)
    throw new NbError("invalid_input", "No current project: plot tools work inside a project");
  return openPlotContext(ctx.project, ctx.profileKey ?? "user");
}

/** Refuse list filters when an id asks for one item (they would silently do nothing). */
export function assertNoFilters(input: Record<string, unknown>, idKey: string): void {
  const extra = Object.keys(input).filter((k) => k !== idKey && input[k] !== undefined);
  if (extra.length) {
    throw new NbError("invalid_input", `${extra.join(", ")} only apply when listing (omit ${idKey})`, {
      fields: extra.map((k) => ({ pointer: `/${k}`, message: `list-mode only; omit ${idKey} to list` })),
    });
  }
}

/** A list page as compact text: a header, one JSON row per line, and how to get the next page. */
export function pageResult(what: string, page: Page<unknown>): ToolResult {
  const lines = [`${what}: ${page.rows.length} of ${page.total}`];
  for (const r of page.rows) lines.push(JSON.stringify(r));
  if (page.nextCursor) lines.push(`More: call again with cursor "${page.nextCursor}".`);
  return { text: lines.join("\n"), details: page };
}

/** One object as indented JSON text with the same value in details. */
export function jsonResult(value: unknown): ToolResult {
  return { text: JSON.stringify(value, null, 2), details: value };
}
