import { readFileSync } from "node:fs";
import { parse, stringify } from "yaml";
import { z } from "zod";
import { NbError } from "../core/errors.js";
import { parseOrThrow } from "../core/validate.js";

/** project.yaml: what the novel is. */
export const ProjectMetaSchema = z
  .object({
    title: z.string().min(1).max(200),
    summary: z.string().max(4000).default(""),
    language: z.enum(["en", "zh"]).default("en"),
  })
  .loose();

export type ProjectMeta = z.infer<typeof ProjectMetaSchema>;

/** Read and validate `project.yaml`. */
export function readProjectMeta(file: string): ProjectMeta {
  let raw: unknown;
  try {
    raw = parse(readFileSync(file, "utf8"));
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
