import { realpathSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { NbError } from "../core/errors.js";
import { looksBinary } from "../core/text.js";
import { isInside, resolveFileAddress } from "../workspace/paths.js";
import type { Project } from "../workspace/project.js";
import { readFileSafeSync } from "../workspace/safe-read.js";
import type { Workspace } from "../workspace/workspace.js";
import { listSkills } from "./catalog.js";
import { SkillName } from "./skill-file.js";

/** The scheme of skill file addresses: `skill://<name>/<file inside the skill folder>`. */
export const SKILL_SCHEME = "skill://";

/** The largest skill file read. */
const MAX_SKILL_FILE_BYTES = 8 * 1024 * 1024;

/** A file or folder of a skill, resolved for reading. */
export interface SkillFile {
  /** Absolute host path; never shown to a model. */
  abs: string;
  /** The real folder the opened file must be inside: the project's root, or the skill's own folder. */
  root: string;
  /** What `root` is, for errors. */
  rootName: string;
  /** The address as the model should see it. */
  display: string;
  isDirectory: boolean;
}

function escapeError(message: string): NbError {
  return new NbError("path_escape", message);
}

/**
 * Resolve `skill://<name>/<path>` to a file of the winning skill of that name. Read-only: nothing
 * writes through it. A project skill goes through the project's file authorisation; a built-in or
 * workspace skill must stay inside its own folder, judged on the real path (no `..`, no link out).
 */
export function resolveSkillFile(workspace: Workspace, project: Project | null, locator: string): SkillFile {
  if (locator.includes("\0")) throw escapeError("Path contains a NUL byte");
  const m = /^skill:\/\/([^/\\]+)(?:[/\\](.*))?$/s.exec(locator);
  if (!m || !SkillName.safeParse(m[1]).success)
    throw new NbError(
      "invalid_input",
      `Not a skill address (skill://<name>/<file>): ${locator.slice(0, 80)}`,
    );
  const name = m[1];
  const rest = (m[2] ?? "").replace(/\\/g, "/");
  if (rest.startsWith("/"))
    throw escapeError(`Absolute paths are not allowed in a skill address: ${locator}`);
  const rel = posix.normalize(rest || ".").replace(/\/+$/, "") || ".";
  if (rel === ".." || rel.startsWith("../")) throw escapeError(`Path leaves the skill folder: ${locator}`);
  const skill = listSkills(workspace, project).find((s) => s.name === name);
  if (!skill) throw new NbError("not_found", `No skill named ${name}`);
  const display = rel === "." ? `${SKILL_SCHEME}${name}` : `${SKILL_SCHEME}${name}/${rel}`;

  let abs: string;
  let root: string;
  let rootName: string;
  if (skill.layer === "project" && project) {
    const inProject = `.nbook/agent/skills/${name}${rel === "." ? "" : `/${rel}`}`;
    const r = resolveFileAddress(workspace, project, inProject, { allowRoot: false });
    abs = r.abs;
    root = r.project.realRoot;
    rootName = "the project";
  } else {
    abs = rel === "." ? skill.dir : join(skill.dir, ...rel.split("/"));
    rootName = "the skill folder";
    let real: string;
    try {
      root = realpathSync.native(skill.dir);
      real = realpathSync.native(abs);
    } catch {
      throw new NbError("not_found", `File not found: ${display}`);
    }
    if (!isInside(real, root)) throw escapeError(`Path resolves outside the skill folder: ${display}`);
  }
  const st = statSync(abs, { throwIfNoEntry: false });
  if (!st) throw new NbError("not_found", `File not found: ${display}`);
  if (st.isFile() && st.nlink > 1)
    throw escapeError(`${display} is a hard link (the file has ${st.nlink} names), so it is not read`);
  if (!st.isFile() && !st.isDirectory()) throw new NbError("unsupported", `${display} is not a regular file`);
  return { abs, root, rootName, display, isDirectory: st.isDirectory() };
}

/**
 * The text of a resolved skill file; binary files are refused. Read through the descriptor it is
 * opened on, checked again there: the name may lead elsewhere since it was resolved.
 */
export function readSkillText(f: SkillFile): string {
  const buf = readFileSafeSync(f.abs, {
    label: f.display,
    root: f.root,
    rootName: f.rootName,
    maxBytes: MAX_SKILL_FILE_BYTES,
  });
  if (buf === null) throw new NbError("not_found", `File not found: ${f.display}`);
  if (looksBinary(buf))
    throw new NbError("unsupported", `${f.display} is a binary file; only text files can be read`);
  return buf.toString("utf8");
}
