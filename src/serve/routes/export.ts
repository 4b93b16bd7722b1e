import { EXPORT_MEDIA_TYPES, ExportOptionsSchema, exportBook } from "../../books/export/index.js";
import { type ApiRoutes, fromPart } from "../api.js";
import type { ServeHub } from "../hub.js";
import { ProjectParams } from "./common.js";

/** How many of the compiler's warnings the download's header carries (the count header has them all). */
const HEADER_WARNINGS = 20;
const WARNING_CHARS = 300;

/**
 * The first warnings as URI-encoded JSON: a header holds only ASCII, and a download has no JSON
 * body to put them in.
 */
function warningList(warnings: string[]): string {
  const shown = warnings
    .slice(0, HEADER_WARNINGS)
    .map((w) => (w.length > WARNING_CHARS ? `${w.slice(0, WARNING_CHARS - 1)}…` : w));
  return encodeURIComponent(JSON.stringify(shown));
}

/** The book as a download: the same compiler as `nbook export`. */
export function registerExportRoutes(routes: ApiRoutes, hub: ServeHub): void {
  routes.add(
    {
      method: "get",
      path: "/api/projects/:project/export",
      tag: "projects",
      download: [...new Set(Object.values(EXPORT_MEDIA_TYPES).map((t) => t.split(";")[0]!))],
      summary:
        "Compile the project's book (title page, contents, chapters in the plot's order, front/back matter) and download it; X-Export-Warnings counts the compiler's warnings, X-Export-Warning-List holds the first 20 (URI-encoded JSON array of strings)",
      params: ProjectParams,
      query: ExportOptionsSchema,
    },
    async (_c, { params, query }) => {
      const project = hub.workspace.project(params.project);
      const result = await fromPart("query", () => exportBook(project, query));
      return new Response(result.bytes, {
        headers: {
          "content-type": result.mediaType,
          // Project names are letters, digits, '.', '_' and '-': safe inside the quotes as they are.
          "content-disposition": `attachment; filename="${result.fileName}"`,
          "x-export-chapters": String(result.chapters),
          "x-export-warnings": String(result.warnings.length),
          "x-export-warning-list": warningList(result.warnings),
        },
      });
    },
  );
}
