// The importer's entry point for every door (CLI `nbook import`, the API, tests):
//   importBook(workspace, source, options, hooks?) → Promise<ImportResult>  ({ plan, written })
// source: { path } (a DOCX, EPUB, Markdown or text file, or a folder of Markdown files) or
// { bytes, name } (an upload). options: ImportOptionsSchema (project, into, dryRun, split, title,
// author, language). Chapters go to manuscript/NN-slug/index.md (`# Title` then the text), the text
// before the first chapter to manuscript/front-matter.md; title, author and language to project.yaml.
import { NbError } from "../../core/errors.js";
import { parseOrThrow } from "../../core/validate.js";
import type { Workspace } from "../../workspace/workspace.js";
import { compose } from "./compose.js";
import { type ImportOptions, ImportOptionsSchema } from "./options.js";
import type { ImportResult } from "./plan.js";
import { type ImportSource, readSource, sourceLabel } from "./read.js";
import { slugOf } from "./slug.js";
import { existingOf, writeInto, writeNewProject } from "./write.js";

export { ImportChoicesSchema, type ImportOptions, ImportOptionsSchema } from "./options.js";
export { type ImportPlan, ImportPlanSchema, type ImportResult, ImportResultSchema } from "./plan.js";
export { type ImportSource, MAX_IMPORT_BYTES } from "./read.js";

/** How far an import has got: reading the source, then writing chapter `done` of `total`. */
export interface ImportProgress {
  stage: "read" | "write" | "done";
  done: number;
  total: number;
}

export interface ImportHooks {
  onProgress?: (p: ImportProgress) => void;
}

/** A free project folder name for a book: its title's slug, else the file's, numbered on when taken. */
function projectNameFor(ws: Workspace, title: string, source: string): string {
  const base = (slugOf(title) || slugOf(source.replace(/\.[^.]+$/, "")) || "imported-book").slice(0, 56);
  let name = base;
  for (let n = 2; ws.hasProject(name) || !isFree(ws, name); n++) name = `${base}-${n}`;
  return name;
}

function isFree(ws: Workspace, name: string): boolean {
  return !ws.listProjects().some((p) => p.name === name) && !ws.hasProject(name);
}

/**
 * Import a manuscript: read it, cut it into chapters (and parts into acts), and — unless `dryRun` —
 * create a project from it atomically, or append it to the project `into` after its last chapter
 * (all of it or nothing). Returns the plan either way.
 */
export async function importBook(
  ws: Workspace,
  source: ImportSource,
  raw: ImportOptions,
  hooks: ImportHooks = {},
): Promise<ImportResult> {
  const opts = parseOrThrow(ImportOptionsSchema, raw, "options");
  const progress = hooks.onProgress ?? (() => {});
  progress({ stage: "read", done: 0, total: 1 });
  const read = await readSource(source);
  const label = sourceLabel(source);
  const into = opts.into ? ws.project(opts.into) : null;
  const existing = into ? await existingOf(into) : undefined;
  const draft = compose(read, opts, {
    source: label,
    project: opts.into ?? opts.project ?? "",
    into: !!into,
    existing,
  });
  const project = into?.name ?? opts.project ?? projectNameFor(ws, draft.plan.title, label);
  if (!into && ws.hasProject(project)) {
    throw new NbError(
      "conflict",
      `A project named "${project}" exists: choose another --project, or append with --into ${project}`,
      {
        fields: [{ pointer: "/project", message: "project exists" }],
      },
    );
  }
  const book = { ...draft, plan: { ...draft.plan, project } };
  if (opts.dryRun) return { plan: book.plan, written: false };
  const onWrite = (p: { done: number; total: number }) => progress({ stage: "write", ...p });
  if (into) await writeInto(into, book, onWrite);
  else {
    const { title, author, language } = book.plan;
    await writeNewProject(
      ws,
      project,
      { title, summary: "", language, ...(author ? { author } : {}) },
      book,
      onWrite,
    );
  }
  progress({ stage: "done", done: book.chapters.length, total: book.chapters.length });
  return { plan: book.plan, written: true };
}
