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

/**
 * True when dist/ holds a complete build of the current sources.
 * @param {string} root the repository
 */
export function isBuildCurrent(root) {
  let stamp;
  try {
    stamp = readFileSync(join(root, "dist", STAMP_FILE), "utf8");
  } catch {
    return false;
  }
  return stamp === sourceFingerprint(root);
}
