// @ts-check
// Whether dist/ was built from the sources as they are now. Kept free of dependencies so that
// bin/nbook can ask on every start-up for a few milliseconds of stat calls.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** The file in dist/ that records which sources it was built from. */
export const STAMP_FILE = ".build-stamp";

/**
 * The files under src/ that go into dist/: every file except tests.
 * @param {string} root the repository
 * @returns {string[]} paths relative to src/
 */
export function sourceFiles(root) {
  const src = join(root, "src");
  return readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.endsWith(".test.ts"))
    .map((e) => relative(src, join(e.parentPath ?? e.path, e.name)))
    .sort();
}

/**
 * A digest of the name, size and modification time of every input of the build (sources and build settings).
 * @param {string} root the repository
 */
export function sourceFingerprint(root) {
  const inputs = [
    ...sourceFiles(root).map((f) => join("src", f)),
    "tsconfig.json",
    "scripts/build.mjs",
    "scripts/build-stamp.mjs",
  ];
  const hash = createHash("sha256");
  for (const file of inputs) {
    // A file deleted since the directory was listed is simply not an input any more.
    const s = statSync(join(root, file), { throwIfNoEntry: false });
    if (s) hash.update(`${file}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return hash.digest("hex");
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
