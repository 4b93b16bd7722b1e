import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomicSync } from "../../core/atomic-write.js";
import { NbError } from "../../core/errors.js";
import { openPlotContext, type PlotContext, saveAct, saveChapter } from "../../plot/index.js";
import { writeProjectLayout } from "../../workspace/layout.js";
import { Project } from "../../workspace/project.js";
import type { ProjectMeta } from "../../workspace/project-meta.js";
import type { Workspace } from "../../workspace/workspace.js";
import type { Composed, Existing } from "./compose.js";

/** The actor plot rows written by an import are recorded as. */
export const IMPORT_ACTOR = "import";

/** A step of writing, for a progress display. */
export interface WriteProgress {
  done: number;
  total: number;
}

type OnProgress = (p: WriteProgress) => void;

const tempName = () => `.import-${randomBytes(6).toString("hex")}.tmp`;

/** Chapter folders and the front-matter file, written under `dir` (a temp folder). */
function writeFiles(dir: string, book: Composed, onProgress: OnProgress): void {
  const total = book.chapters.length;
  book.chapters.forEach((c, i) => {
    writeFileAtomicSync(join(dir, c.folder, "index.md"), c.text);
    onProgress({ done: i + 1, total });
  });
  if (book.front)
    writeFileAtomicSync(join(dir, book.front.file.replace(/^manuscript\//, "")), book.front.text);
}

/** Acts, then chapters in reading order (each appended after the story's last), in the caller's transaction. */
function writePlot(pc: PlotContext, book: Composed): void {
  const actIds = new Map<string, number>();
  for (const a of book.acts)
    actIds.set(a.name, saveAct(pc, { action: "create", name: a.name, title: a.title }).id);
  for (const c of book.chapters) {
    saveChapter(pc, {
      action: "create",
      name: c.name,
      title: c.title.slice(0, 120),
      ...(c.act ? { actId: actIds.get(c.act) } : {}),
    });
  }
}

/** manuscript/index.md's list of chapters: `N. Title` a line, numbered on from `from`. */
function contentsLines(book: Composed, from: number): string {
  return book.chapters.map((c, i) => `${from + i}. ${c.title}`).join("\n");
}

/**
 * Create the project `name` from an imported book, atomically: the whole project (layout, chapters,
 * front matter, project.yaml, plot) is built in a temp folder beside the workspace's projects and
 * renamed into place; on any failure the temp folder is removed and nothing is left.
 */
export async function writeNewProject(
  ws: Workspace,
  name: string,
  meta: ProjectMeta,
  book: Composed,
  onProgress: OnProgress,
): Promise<void> {
  const target = join(ws.root, name);
  if (existsSync(target)) throw new NbError("conflict", `A file or folder named "${name}" already exists`);
  const tmpName = tempName();
  const tmp = join(ws.root, tmpName);
  let staged: Project | null = null;
  try {
    mkdirSync(tmp);
    writeProjectLayout(tmp, meta);
    writeFiles(join(tmp, "manuscript"), book, onProgress);
    writeFileAtomicSync(
      join(tmp, "manuscript", "index.md"),
      `# ${meta.title}\n\n${contentsLines(book, 1)}\n`,
    );
    staged = new Project(ws, tmpName);
    const pc = await openPlotContext(staged, IMPORT_ACTOR);
    pc.db.transaction(() => writePlot(pc, book))();
    staged.close();
    staged = null;
    if (existsSync(target)) throw new NbError("conflict", `A file or folder named "${name}" already exists`);
    renameSync(tmp, target);
  } catch (e) {
    staged?.close();
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

/** What an existing project's manuscript and plot hold, for numbering and naming after them. */
export async function existingOf(project: Project): Promise<Existing> {
  const dir = join(project.root, "manuscript");
  const entries = existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : [];
  const pc = await openPlotContext(project, IMPORT_ACTOR);
  const names = (table: string) =>
    new Set((pc.db.prepare(`SELECT name FROM ${table}`).all() as { name: string }[]).map((r) => r.name));
  return {
    folders: entries.filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name),
    files: new Set(entries.filter((e) => e.isFile()).map((e) => e.name)),
    chapterNames: names("story_chapter"),
    actNames: names("story_act"),
  };
}

/**
 * Append an imported book to an existing project, after its last chapter, all or nothing: the
 * chapter folders are written in a temp folder inside manuscript/, then moved into place inside the
 * plot transaction that creates their rows; a failed move undoes the moves before it and rolls the
 * plot back.
 */
export async function writeInto(project: Project, book: Composed, onProgress: OnProgress): Promise<void> {
  const manuscript = join(project.root, "manuscript");
  const tmp = join(manuscript, tempName());
  const before = (await existingOf(project)).folders.length;
  try {
    mkdirSync(tmp, { recursive: true });
    writeFiles(tmp, book, onProgress);
    const moves: [string, string][] = book.chapters.map((c) => [
      join(tmp, c.folder),
      join(manuscript, c.folder),
    ]);
    if (book.front) {
      const file = book.front.file.replace(/^manuscript\//, "");
      moves.push([join(tmp, file), join(manuscript, file)]);
    }
    const pc = await openPlotContext(project, IMPORT_ACTOR);
    pc.db.transaction(() => {
      writePlot(pc, book);
      const done: [string, string][] = [];
      try {
        for (const [from, to] of moves) {
          if (existsSync(to))
            throw new NbError(
              "conflict",
              `manuscript/${to.slice(manuscript.length + 1)} appeared during the import`,
            );
          renameSync(from, to);
          done.push([from, to]);
        }
      } catch (e) {
        for (const [from, to] of done.reverse()) renameSync(to, from);
        throw e;
      }
    })();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const index = join(manuscript, "index.md");
  const old = existsSync(index)
    ? readFileSync(index, "utf8").replace(/\s+$/, "")
    : `# ${project.meta().title}`;
  writeFileAtomicSync(index, `${old}\n${old.includes("\n") ? "" : "\n"}${contentsLines(book, before + 1)}\n`);
}
