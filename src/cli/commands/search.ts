import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import { parseOrThrow } from "../../core/validate.js";
import { formatResult } from "../../search/format.js";
import { ProjectSearch } from "../../search/project-search.js";
import { SearchRequestSchema } from "../../search/schema.js";
import { locateProject } from "../locate.js";
import { printJson, reportCliError, writeOut } from "../output.js";

interface SearchOptions {
  workspace?: string;
  project?: string;
  in?: string[];
  limit?: string;
  json?: boolean;
}

/** `nbook search "<query>"`: the project's full-text index (brought up to the files first). */
export function registerSearch(program: Command): void {
  program
    .command("search")
    .description(
      'Search the manuscript, lorebook and .agent/plan/ for words, a "phrase" or a prefix*: file, line, chapter and a snippet',
    )
    .argument("<query>", 'words (all required), a "quoted phrase" (quote it for the shell too), or a prefix*')
    .option(
      "--in <area>",
      "only manuscript, lorebook or plan (repeat for several)",
      (v: string, all: string[] = []) => [...all, v],
    )
    .option("--limit <n>", "lines at most (1-200, default 20)")
    .option("--workspace <dir>", "workspace root")
    .option("--project <name>", "project (default: the project folder you are in)")
    .option("--json", "print exactly one JSON object")
    .action((query: string, o: SearchOptions) => {
      try {
        const { project } = locateProject(o, true);
        if (!project) throw new NbError("invalid_input", "No project: run inside one or give --project");
        if (o.limit !== undefined && !/^\d+$/.test(o.limit))
          throw new NbError("invalid_input", "--limit must be a whole number (1-200)", {
            fields: [{ pointer: "/limit", message: "expected a whole number" }],
          });
        const req = parseOrThrow(
          SearchRequestSchema,
          { query, in: o.in, limit: o.limit === undefined ? undefined : Number(o.limit) },
          "search",
        );
        const index = new ProjectSearch(project);
        try {
          index.sync();
          const r = index.search(req);
          if (o.json) printJson({ ok: true, ...r });
          else writeOut(`${formatResult(r)}\n`);
        } finally {
          index.close();
        }
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
}
