// @ts-check
// Whether dist/ was built from the sources as they are now. Kept free of dependencies (and of
// anything slow to load) so that bin/nbook can ask on every start-up: one directory walk and a stat
// per source file.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** The file in dist/ that records which sources it was built from. */
export const STAMP_FILE = ".build-stamp";

/**
 * The files under src/ that go into dist/: every file except tests.
 * @param {string} root the repository
 * @returns {string[]} paths relative to src/
 */
export function sourceFiles(root) {
  const src = join(root, "src");
  const files = [];
  for (const e of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || e.name.endsWith(".test.ts")) continue;
    const dir = e.parentPath ?? e.path;
    files.push(dir.length > src.length ? join(dir.slice(src.length + 1), e.name) : e.name);
  }
  return files.sort();
}

/**
 * The name, size and modification time of every input of the build (sources and build settings),
 * one line each: what the stamp records and the check compares.
 * @param {string} root the repository
 */
export function sourceFingerprint(root) {
  const inputs = [
    ...sourceFiles(root).map((f) => join("src", f)),
    "tsconfig.json",
    "scripts/build.mjs",
    "scripts/build-stamp.mjs",
  ];
  let lines = "";
  for (const file of inputs) {
    // A file deleted since the directory was listed is simply not an input any more.
    const s = statSync(join(root, file), { throwIfNoEntry: false });
    if (s) lines += `${file}\t${s.size}\t${s.mtimeMs}\n`;
  }
  return lines;
}

/** The folder in dist/ that holds the built web workbench (its own stamp inside). */
export const WEB_OUT = "workbench";

/**
 * True when the repository has a web workbench to build (a checkout always does; a test's
 * throw-away repository of sources may not).
 * @param {string} root the repository
 */
export function hasWeb(root) {
  return statSync(join(root, "web", "index.html"), { throwIfNoEntry: false })?.isFile() === true;
}

/**
 * The name, size and modification time of every input of the web workbench build (web/ and the
 * build scripts), one line each.
 * @param {string} root the repository
 */
export function webFingerprint(root) {
  const web = join(root, "web");
  const inputs = ["scripts/build.mjs", "scripts/build-web.mjs", "scripts/build-stamp.mjs"];
  for (const e of readdirSync(web, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const dir = e.parentPath ?? e.path;
    inputs.push(join("web", dir.length > web.length ? dir.slice(web.length + 1) : "", e.name));
  }
  let lines = "";
  for (const file of inputs.sort()) {
    const s = statSync(join(root, file), { throwIfNoEntry: false });
    if (s) lines += `${file}\t${s.size}\t${s.mtimeMs}\n`;
  }
  return lines;
}

/**
 * True when the stamp file at `path` records `fingerprint`.
 * @param {string} path
 * @param {string} fingerprint
 */
function stampMatches(path, fingerprint) {
  try {
    return readFileSync(path, "utf8") === fingerprint;
  } catch {
    return false;
  }
}

/**
 * True when dist/ holds a complete build of the current sources (the CLI's code).
 * @param {string} root the repository
 */
export function isDistCurrent(root) {
  return stampMatches(join(root, "dist", STAMP_FILE), sourceFingerprint(root));
}

/**
 * True when dist/workbench/ holds a build of the current web workbench sources (or there is none to build).
 * @param {string} root the repository
 */
export function isWebCurrent(root) {
  if (!hasWeb(root)) return true;
  return stampMatches(join(root, "dist", WEB_OUT, STAMP_FILE), webFingerprint(root));
}

/**
 * True when dist/ holds complete builds of both the CLI's code and the web workbench.
 * @param {string} root the repository
 */
export function isBuildCurrent(root) {
  return isDistCurrent(root) && isWebCurrent(root);
}
