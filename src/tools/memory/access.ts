import { stat } from "node:fs/promises";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { normalizeSubjectPath } from "../../memory/files.js";
import { indexFileOf, type SubjectFiles } from "../../memory/subjects.js";
import { writeProjectFile } from "../../workspace/anchored-fs.js";
import { authorize, readTextOrNull, writeScope } from "../files/common.js";
import type { ToolContext } from "../types.js";

/** The `subjectPath` input every subject tool takes. */
export const SubjectPath = z.string().describe("The subject's folder: simulation/subjects/<id>");

/** Profiles whose sessions play one subject and may reach only its memory. */
const SUBJECT_BOUND_PROFILES = new Set(["simulator.actor"]);

/**
 * The canonical subject path of a call, refused with `not_allowed` when the caller is bound to
 * another subject: an actor's session names its subject in `initial.subjectPath`, and an actor
 * with no such binding (no session) reaches none.
 */
export function allowedSubject(ctx: ToolContext, subjectPath: string): string {
  const { path } = normalizeSubjectPath(subjectPath);
  if (ctx.profileKey === null || !SUBJECT_BOUND_PROFILES.has(ctx.profileKey)) return path;
  const bound = ctx.session?.initial.subjectPath;
  const own = typeof bound === "string" ? normalizeSubjectPath(bound).path : null;
  if (own !== path) {
    throw new NbError(
      "not_allowed",
      own === null
        ? `${ctx.profileKey} is bound to no subject, so it cannot reach ${path}`
        : `${ctx.profileKey} plays ${own} and may reach only its own memory, not ${path}`,
    );
  }
  return path;
}

/** The current project's subject files, read and written through the file authorisation path. */
export function subjectFiles(ctx: ToolContext): SubjectFiles {
  if (ctx.project === null)
    throw new NbError("not_allowed", "Project not open: subject memory lives in a project");
  return {
    read: (rel) => readTextOrNull(authorize(ctx, rel, "read")),
    write: (rel, text) => writeProjectFile(authorize(ctx, rel, "write"), text, writeScope(ctx)),
    isDir: async (rel) => {
      const st = await stat(authorize(ctx, rel, "read").abs).catch(() => null);
      return st?.isDirectory() ?? false;
    },
    indexFile: indexFileOf(ctx.project.root),
  };
}
