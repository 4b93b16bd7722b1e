import { resolve } from "node:path";
import type { Command } from "commander";
import { NbError } from "../../core/errors.js";
import { Workspace } from "../../workspace/workspace.js";
import { printJson, reportCliError, writeErr, writeOut } from "../output.js";

type Plan = import("../../books/import/index.js").ImportPlan;

/** The plan as a table: where the book goes, its acts and chapters with word counts, and each warning. */
function formatPlan(plan: Plan): string {
  const by = plan.author ? ` by ${plan.author}` : "";
  const where = plan.into ? `appended to project ${plan.project}` : `new project ${plan.project}`;
  const enc = plan.encoding ? `, ${plan.encoding}` : "";
  const lines = [
    `"${plan.title}"${by} (${plan.language}) from ${plan.source} (${plan.format}${enc}): ${plan.chapters.length} chapter(s), ${plan.words} words → ${where}`,
  ];
  if (plan.frontMatter)
    lines.push(`Front matter: ${plan.frontMatter.file} (${plan.frontMatter.words} words)`);
  if (plan.acts.length) lines.push(`Acts: ${plan.acts.map((a) => a.title).join(" · ")}`);
  const width = Math.max(6, ...plan.chapters.map((c) => c.folder.length));
  lines.push(`  ${"#".padStart(4)}  ${"Folder".padEnd(width)}  ${"Words".padStart(7)}  Title`);
  for (const c of plan.chapters) {
    lines.push(
      `  ${String(c.index).padStart(4)}  ${c.folder.padEnd(width)}  ${String(c.words).padStart(7)}  ${c.title}`,
    );
  }
  for (const w of plan.warnings) lines.push(`warning [${w.code}]: ${w.message}`);
  return `${lines.join("\n")}\n`;
}

interface ImportFlags {
  project?: string;
  into?: string;
  dryRun?: boolean;
  split?: string;
  title?: string;
  author?: string;
  language?: string;
  workspace?: string;
  json?: boolean;
}

/** `nbook import <file|folder>`. */
export function registerImport(program: Command): void {
  program
    .command("import")
    .description(
      "Import a manuscript (DOCX, EPUB, Markdown, plain text, or a folder of Markdown files) as a new project, or --into an existing one",
    )
    .argument("<source>", "a .docx, .epub, .md or .txt file, or a folder of .md files")
    .option("--project <name>", "the new project's folder name (default: from the book's title)")
    .option("--into <project>", "append the chapters to this project, after its last chapter")
    .option("--dry-run", "print the plan (chapters, titles, word counts) and write nothing")
    .option("--split <pattern:REGEX>", "start a chapter at each line the regular expression matches")
    .option("--title <title>", "the book's title (default: from the file)")
    .option("--author <author>", "the author (default: from the file)")
    .option("--language <lang>", "en or zh (default: from the file, else from the text)")
    .option("--workspace <dir>", "workspace root (default: NBOOK_WORKSPACE or the nearest .nbook/)")
    .option("--json", "print the plan as JSON")
    .action(async (source: string, o: ImportFlags) => {
      try {
        if (o.language !== undefined && o.language !== "en" && o.language !== "zh") {
          throw new NbError("invalid_input", `--language must be en or zh, not ${o.language}`);
        }
        const { importBook } = await import("../../books/import/index.js");
        const ws = Workspace.discover({ workspace: o.workspace });
        let shown = 0;
        const result = await importBook(
          ws,
          { path: resolve(source) },
          {
            project: o.project,
            into: o.into,
            dryRun: o.dryRun ?? false,
            split: o.split,
            title: o.title,
            author: o.author,
            language: o.language as "en" | "zh" | undefined,
          },
          {
            // A long book shows how far the writing is, a line a quarter, on stderr (stdout stays the plan).
            onProgress: (p) => {
              if (o.json || p.stage !== "write" || p.total < 40) return;
              const quarter = Math.floor((p.done / p.total) * 4);
              if (quarter > shown) {
                shown = quarter;
                writeErr(`Writing chapters: ${p.done}/${p.total}\n`);
              }
            },
          },
        );
        ws.close();
        if (o.json) return printJson({ ok: true, ...result });
        writeOut(formatPlan(result.plan));
        if (!result.written) writeOut("Dry run: nothing was written.\n");
        else if (result.plan.into)
          writeOut(`Appended ${result.plan.chapters.length} chapter(s) to ${result.plan.project}.\n`);
        else writeOut(`Created project ${result.plan.project}.\n`);
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
}
