import { resolve } from "node:path";
import type { Command } from "commander";
import { writeFileAtomic } from "../../core/atomic-write.js";
import { NbError } from "../../core/errors.js";
import { locateProject } from "../locate.js";
import { printJson, reportCliError, writeErr, writeOut } from "../output.js";

interface ExportFlags {
  format: string;
  out?: string;
  chapters?: string;
  project?: string;
  workspace?: string;
  json?: boolean;
}

function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** `nbook export --format F`. */
export function registerExport(program: Command): void {
  program
    .command("export")
    .description(
      "Compile the project's book — title page, contents, chapters in the plot's order, front/back matter — as EPUB, DOCX, Markdown, HTML or PDF",
    )
    .requiredOption("--format <format>", "epub, docx, md, html or pdf (pdf prints through Debian's chromium)")
    .option("--out <file>", "where to write the book (default: <project>.<format> in the current folder)")
    .option(
      "--chapters <A..B>",
      "only chapters A to B in reading order, 1 being the first (A.., ..B or N too)",
    )
    .option("--project <name>", "the project (default: the one the current folder is in)")
    .option("--workspace <dir>", "workspace root (default: NBOOK_WORKSPACE or the nearest .nbook/)")
    .option("--json", "print what was written as JSON")
    .action(async (o: ExportFlags) => {
      try {
        const { EXPORT_FORMATS, exportBook } = await import("../../books/export/index.js");
        const format = EXPORT_FORMATS.find((f) => f === o.format);
        if (!format) {
          throw new NbError(
            "invalid_input",
            `--format must be one of ${EXPORT_FORMATS.join(", ")}, not "${o.format}"`,
          );
        }
        const { project } = locateProject(o, true);
        const result = await exportBook(project!, {
          format,
          ...(o.chapters !== undefined ? { chapters: o.chapters } : {}),
        });
        const out = resolve(o.out ?? result.fileName);
        await writeFileAtomic(out, result.bytes);
        if (o.json) {
          printJson({
            ok: true,
            file: out,
            format: o.format,
            chapters: result.chapters,
            bytes: result.bytes.length,
            warnings: result.warnings,
          });
          return;
        }
        for (const w of result.warnings) writeErr(`warning: ${w}\n`);
        writeOut(
          `Exported ${result.chapters} chapter${result.chapters === 1 ? "" : "s"} of ${project!.name} as ${o.format} to ${out} (${size(result.bytes.length)})\n`,
        );
      } catch (e) {
        reportCliError(e, o.json);
      }
    });
}
