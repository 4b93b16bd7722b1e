import { stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { normalizeSubjectPath } from "../../memory/files.js";
import { indexFileOf, type SubjectFiles } from "../../memory/subjects.js";
import { appendProjectFile, writeProjectFile } from "../../workspace/anchored-fs.js";
import { realPathOf } from "../../workspace/paths.js";
import { readTextSafe } from "../../workspace/safe-read.js";
import { authorize, readTextOrNull, writeScope } from "../files/common.js";
import type { ToolContext, WriteGrant } from "../types.js";

/** The `subjectPath` input every subject tool takes. */
export const SubjectPath = z.string().describe("simulation/subjects/<id>");

/** The largest memory file a subject-bound actor reads. */
const MAX_BOUND_READ_BYTES = 64 * 1024 * 1024;

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
  // Judged on the real path: `mira` as a link to `tomas` names mira and reaches tomas.
  const folder = ownFolder(ctx, path);
  if (folder && realPathOf(folder.abs, path) !== folder.real) {
    throw new NbError(
      "not_allowed",
      `${path} is not the subject's own folder (it leads elsewhere through a symbolic link), so ${ctx.profileKey} reaches no memory through it`,
    );
  }
  return path;
}

/** Where a subject's folder is named, and where it really is when nothing on the way is a link. */
function ownFolder(ctx: ToolContext, path: string): { abs: string; real: string } | null {
  if (ctx.project === null) return null;
  const segments = path.split("/");
  return { abs: join(ctx.project.root, ...segments), real: join(ctx.project.realRoot, ...segments) };
}

/** The real folder a subject-bound caller's reads must really be inside; null for a caller bound to none. */
function boundFolder(ctx: ToolContext): string | null {
  if (ctx.profileKey === null || !SUBJECT_BOUND_PROFILES.has(ctx.profileKey)) return null;
  const bound = ctx.session?.initial.subjectPath;
  return typeof bound === "string" ? (ownFolder(ctx, normalizeSubjectPath(bound).path)?.real ?? null) : null;
}

/**
 * The current project's subject files, read and written through the file authorisation path;
 * written only where the call's grant lets it (writeScope).
 */
export function subjectFiles(ctx: ToolContext, writes: WriteGrant): SubjectFiles {
  if (ctx.project === null)
    throw new NbError("not_allowed", "Project not open: subject memory lives in a project");
  const within = boundFolder(ctx);
  return {
    // A bound actor's reads are held to its subject's real folder on the opened file, so a link
    // swapped in after allowedSubject looked is not followed either.
    read: (rel) =>
      within === null
        ? readTextOrNull(authorize(ctx, rel, "read"))
        : readTextSafe(authorize(ctx, rel, "read").abs, {
            label: rel,
            root: within,
            rootName: "the subject's own folder",
            maxBytes: MAX_BOUND_READ_BYTES,
          }),
    write: (rel, text) => writeProjectFile(authorize(ctx, rel, "write"), text, writeScope(writes, ctx)),
    append: (rel, text, keepBytes) =>
      appendProjectFile(authorize(ctx, rel, "write"), text, keepBytes, writeScope(writes, ctx)),
    isDir: async (rel) => {
      const st = await stat(authorize(ctx, rel, "read").abs).catch(() => null);
      return st?.isDirectory() ?? false;
    },
    indexFile: indexFileOf(ctx.project.root),
  };
}
