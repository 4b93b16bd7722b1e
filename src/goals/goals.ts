import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomicSync } from "../core/atomic-write.js";
import { NbError } from "../core/errors.js";
import type { Project } from "../workspace/project.js";

const Words = z.number().int().min(1).max(10_000_000);

/** The author's targets, in words: per day, for the whole book, per chapter file. */
export const GoalsSchema = z
  .object({
    daily: Words.nullable().default(null).describe("words to write each day"),
    book: Words.nullable().default(null).describe("words the finished book should have"),
    chapters: z
      .record(z.string().regex(/^manuscript\/[^\0]+\.md$/, "a chapter file under manuscript/"), Words)
      .default({})
      .describe("words per chapter file (project-relative path)"),
  })
  .strict();
export type Goals = z.infer<typeof GoalsSchema>;

const goalsFile = (project: Project) => join(project.root, ".nbook", "goals.json");

/** The project's goals; none set when the file is missing. A file that does not parse is a config error. */
export function readGoals(project: Project): Goals {
  let text: string;
  try {
    text = readFileSync(goalsFile(project), "utf8");
  } catch {
    return GoalsSchema.parse({});
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new NbError("config_error", ".nbook/goals.json is not JSON; set the goals again to replace it");
  }
  const parsed = GoalsSchema.safeParse(json);
  if (!parsed.success)
    throw new NbError(
      "config_error",
      ".nbook/goals.json does not hold goals; set the goals again to replace it",
    );
  return parsed.data;
}

/** Replace the project's goals (atomically). */
export function writeGoals(project: Project, goals: Goals): Goals {
  writeFileAtomicSync(goalsFile(project), `${JSON.stringify(goals, null, 2)}\n`);
  return goals;
}
