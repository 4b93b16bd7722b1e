import { lstatSync, realpathSync, type Stats, statSync } from "node:fs";
import { join, posix, sep } from "node:path";
import { NbError } from "../core/errors.js";
import type { Project } from "./project.js";
import type { Workspace } from "./workspace.js";

/** A file address resolved and authorised for one project. */
export interface ResolvedPath {
  /** Absolute host path; never shown to a model. */
  abs: string;
  /** The project that owns the file. */
  project: Project;
  /** Path relative to that project's root, with `/` separators. */
  rel: string;
  /** How to name the file to a model: `rel` in the current project, else `workspace/<project>/<rel>`. */
  display: string;
}

export interface ResolveOptions {
  /** Allow the project root itself (a directory listing); file targets never may. */
  allowRoot?: boolean;
}

const MAX_PATH = 1024;
const MAX_SEGMENT = 255;

function escapeError(message: string): NbError {
  return new NbError("path_escape", message);
}

/**
 * The one authorisation path for read, write, edit and apply_patch. Relative paths resolve in the
 * current project; `workspace/<project>/<path>` names another project of the workspace. Everything
 * that would leave a project root — lexically or through a symlink — is refused with `path_escape`.
 */
export function resolveFileAddress(
  workspace: Workspace,
  current: Project | null,
  input: string,
  opts: ResolveOptions = {},
): ResolvedPath {
  if (typeof input !== "string" || input.trim() === "") throw escapeError("Path is empty");
  if (input.includes("\0")) throw escapeError("Path contains a NUL byte");
  if (input.length > MAX_PATH) throw escapeError(`Path is longer than ${MAX_PATH} characters`);
  const text = input.trim().replace(/\\/g, "/");
  if (text.startsWith("/") || /^[A-Za-z]:/.test(text) || text.startsWith("~")) {
    throw escapeError(`Absolute paths are not allowed (${input}); use a path relative to the project`);
  }
  const segments = text.split("/");
  if (segments.some((s) => s.length > MAX_SEGMENT))
    throw escapeError(`A path segment is longer than ${MAX_SEGMENT} characters`);

  let project: Project;
  let relSegments: string[];
  if (segments[0] === "workspace") {
    const [, name, ...rest] = segments;
    if (!name || rest.length === 0 || rest.every((s) => s === "" || s === ".")) {
      throw escapeError("Cross-project paths must be workspace/<project>/<relative-path>");
    }
    if (!workspace.hasProject(name))
      throw escapeError(`workspace/${name}: no such project in this workspace`);
    project = workspace.project(name);
    relSegments = rest;
  } else {
    if (!current) {
      throw new NbError(
        "invalid_input",
        "No current project: pass --project, or address files as workspace/<project>/<path>",
      );
    }
    project = current;
    relSegments = segments;
  }

  const rel = posix.normalize(relSegments.join("/")).replace(/\/+$/, "");
  if (rel === ".." || rel.startsWith("../")) throw escapeError(`Path leaves the project: ${input}`);
  const isRoot = rel === "." || rel === "";
  if (isRoot && !opts.allowRoot) throw escapeError("The project root itself is not a file");

  if (!isRoot && current && project === current && segments[0] === current.name && segments.length > 1) {
    const inside = tryLstat(join(project.root, ...rel.split("/")));
    if (!inside) {
      throw new NbError(
        "invalid_input",
        `Paths are relative to the project root already: drop the leading "${current.name}/" (try "${segments.slice(1).join("/")}")`,
      );
    }
  }

  const abs = isRoot ? project.root : join(project.root, ...rel.split("/"));
  const { real, target } = resolveReal(abs, input);
  if (!isInside(real, project.realRoot)) {
    throw escapeError(`Path resolves outside the project through a symbolic link: ${input}`);
  }
  // A hard link has no "real" location to check: its other names may be anywhere on the same
  // file system, outside the project. So a file with more than one name is neither read nor written.
  if (target?.isFile() && target.nlink > 1) {
    throw escapeError(
      `${input} is a hard link (the file has ${target.nlink} names, possibly outside the project), so it is not read or written; replace it with a copy of its own`,
    );
  }
  const relOut = isRoot ? "." : rel;
  return {
    abs,
    project,
    rel: relOut,
    display: current && project === current ? relOut : `workspace/${project.name}/${relOut}`,
  };
}

/**
 * The real path of `abs`: its nearest existing ancestor resolved through symlinks, with the missing
 * segments re-appended. A broken symbolic link on the way is `path_escape` (`input` names it).
 */
export function realPathOf(abs: string, input: string): string {
  return resolveReal(abs, input).real;
}

/** `realPathOf`, plus the status of what `abs` finally names when it exists (read on the way). */
function resolveReal(abs: string, input: string): { real: string; target: Stats | null } {
  let existing = abs;
  const missing: string[] = [];
  let target: Stats | null = null;
  for (;;) {
    const st = tryLstat(existing);
    if (st) {
      if (st.isSymbolicLink()) {
        // A dangling link would let a write create a file wherever it points.
        try {
          realpathSync.native(existing);
        } catch {
          throw escapeError(`Path goes through a broken symbolic link: ${input}`);
        }
        if (existing === abs) target = statSync(abs);
      } else if (existing === abs) target = st;
      break;
    }
    missing.unshift(existing.slice(existing.lastIndexOf(sep) + 1));
    const parent = existing.slice(0, existing.lastIndexOf(sep)) || sep;
    if (parent === existing) break;
    existing = parent;
  }
  // The libc realpath: one call instead of an lstat per path segment.
  return { real: join(realpathSync.native(existing), ...missing), target };
}

/** True when `real` is `realRoot` or inside it. */
export function isInside(real: string, realRoot: string): boolean {
  return real === realRoot || real.startsWith(realRoot + sep);
}

/**
 * The real path of a project's `.nbook/` control area. `.nbook` may itself be a link to another
 * folder of the project; the control area is then that folder, under whichever name it is reached.
 */
export function controlAreaOf(project: Project): string {
  return realPathOf(join(project.root, ".nbook"), ".nbook");
}

function tryLstat(p: string) {
  try {
    return lstatSync(p, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}
