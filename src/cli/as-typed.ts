import { accessSync, constants, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, isAbsolute, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The folder NeuroBook is installed in (a clone): this file is in its src/cli/ or dist/cli/. */
export const INSTALL_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = join(INSTALL_ROOT, "bin", "nbook");

/** One shell word for `text`: as it is when it holds nothing a shell would read, else single-quoted. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** `path` relative to `base` when it is inside it (not `base` itself), else null. */
function inside(base: string, path: string): string | null {
  const rel = relative(base, path);
  return rel && rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel) ? rel : null;
}

/**
 * A path as the user types it in a shell here: relative to the current folder when inside it,
 * `~/…` under the home folder, else absolute; quoted where it needs to be.
 */
export function typedPath(path: string): string {
  const here = inside(process.cwd(), path);
  if (here) return shellWord(here);
  const home = inside(homedir(), path);
  if (home) return `~/${shellWord(home)}`;
  return shellWord(path);
}

function realpathOr(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * How to run this nbook from a shell here: `nbook` when the first nbook on PATH is this one
 * (`npm link`), else the path to its bin/nbook as typed here (`./bin/nbook` in the clone), so a
 * printed command runs as printed.
 */
export function nbookCommand(): string {
  const self = realpathOr(BIN);
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, "nbook");
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    if (realpathOr(candidate) === self) return "nbook";
    break;
  }
  // A relative path names a command only with a slash in it: `bin/nbook` is typed `./bin/nbook`.
  const here = inside(process.cwd(), BIN);
  return here ? `./${shellWord(here)}` : typedPath(BIN);
}
