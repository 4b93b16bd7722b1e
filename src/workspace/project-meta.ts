import { realpathSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { z } from "zod";
import { NbError } from "../core/errors.js";
import { parseOrThrow } from "../core/validate.js";
import { readTextSafeSync } from "./safe-read.js";

/** project.yaml: what the novel is. */
export const ProjectMetaSchema = z
  .object({
    title: z.string().min(1).max(200),
    summary: z.string().max(4000).default(""),
    language: z.enum(["en", "zh"]).default("en"),
    author: z.string().min(1).max(200).optional(),
  })
  .loose();

export type ProjectMeta = z.infer<typeof ProjectMetaSchema>;

/** The project file naming the novel. */
export const PROJECT_FILE = "project.yaml";

/** The most of project.yaml read (its fields are a few KiB at most). */
const MAX_META_BYTES = 256 * 1024;

/**
 * Read and validate the `project.yaml` of the project folder `root` (`realRoot`: its real path):
 * through the safe read, so a FIFO, a device or a link out of the project is an error, not a hang.
 */
export function readProjectMeta(root: string, realRoot = realpathSync(root)): ProjectMeta {
  const text = readTextSafeSync(join(root, PROJECT_FILE), {
    label: PROJECT_FILE,
    root: realRoot,
    maxBytes: MAX_META_BYTES,
  });
  if (text === null) throw new NbError("not_found", `${PROJECT_FILE} is missing`);
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (e) {
    throw new NbError(
      "config_error",
      `project.yaml is not valid YAML: ${(e as Error).message.split("\n")[0]}`,
    );
  }
  return parseOrThrow(ProjectMetaSchema, raw ?? {}, "project.yaml");
}

/** Serialise project metadata as YAML. */
export function formatProjectMeta(meta: ProjectMeta): string {
  return stringify(meta);
}
