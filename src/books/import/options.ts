import { z } from "zod";
import { PROJECT_NAME } from "../../workspace/workspace.js";

/** `--split pattern:REGEX`: each line the regular expression matches starts a chapter. */
const Split = z
  .string()
  .regex(/^pattern:.+/s, "use pattern:REGEX (e.g. pattern:^Chapter \\d+)")
  .refine((s) => {
    try {
      new RegExp(s.slice("pattern:".length), "u");
      return true;
    } catch {
      return false;
    }
  }, "the pattern is not a valid regular expression");

const ProjectName = z
  .string()
  .regex(PROJECT_NAME, "letters, digits, '.', '_' or '-' (max 64, starting with a letter or digit)");

/** What the user chooses about an import (every door takes these). */
export const ImportChoicesSchema = z
  .object({
    /** The new project's folder name (default: from the title, or the file name). */
    project: ProjectName.optional(),
    /** An existing project to append the chapters to, after its last one. */
    into: ProjectName.optional(),
    split: Split.optional(),
    /** Overrides of what the book says of itself. */
    title: z.string().trim().min(1).max(200).optional(),
    author: z.string().trim().min(1).max(200).optional(),
    language: z.enum(["en", "zh"]).optional(),
  })
  .strict();

export const ImportOptionsSchema = ImportChoicesSchema.extend({ dryRun: z.boolean().default(false) })
  .strict()
  .refine((o) => !(o.project && o.into), { message: "give project or into, not both", path: ["into"] });
export type ImportOptions = z.input<typeof ImportOptionsSchema>;
export type ParsedImportOptions = z.output<typeof ImportOptionsSchema>;

/** The regular expression of a `pattern:` split. */
export function splitPattern(split: string | undefined): RegExp | null {
  return split ? new RegExp(split.slice("pattern:".length), "u") : null;
}
