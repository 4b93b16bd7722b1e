// @ts-check
// Compiles src/ into dist/ file by file with esbuild (no bundling, the same relative layout), and
// copies every other file under src/ (SQL and sandbox worker entry files) beside the compiled code,
// so `new URL("./x.js", import.meta.url)` resolves in dist/ as it does in src/. Then builds the web
// workbench (web/) into dist/workbench/ with Vite (scripts/build-web.mjs); each part has its own stamp
// and is rebuilt only when its inputs changed.
// `npm install` runs it (prepare), as does `npm run build`; bin/nbook runs it when src/ or web/ changed.
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import {
  hasWeb,
  isBuildCurrent,
  isDistCurrent,
  isWebCurrent,
  STAMP_FILE,
  sourceFiles,
  sourceFingerprint,
  WEB_OUT,
} from "./build-stamp.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const LOCK_DIR = ".build-lock";
/** A lock older than this was left by a build that died; real builds take well under a second. */
const STALE_LOCK_MS = 60_000;

/** Build dist/ (the CLI's code and the web workbench) from the current sources, whatever state it is in. */
export async function buildDist(root = ROOT) {
  await withBuildLock(root, () => buildParts(root, true, hasWeb(root)));
}

/** Build whichever part of dist/ is missing or older than its sources; true when it built. */
export async function ensureBuilt(root = ROOT) {
  if (isBuildCurrent(root)) return false;
  return withBuildLock(root, async () => {
    // Another process may have built it while this one waited for the lock.
    if (isBuildCurrent(root)) return false;
    await buildParts(root, !isDistCurrent(root), !isWebCurrent(root));
    return true;
  });
}

/**
 * Build the parts asked for. Each is built even when the other fails (a syntax error in src/ does
 * not keep the workbench stale); the first failure is thrown after both.
 * @param {string} root
 * @param {boolean} code the CLI's code (src/ → dist/)
 * @param {boolean} web the web workbench (web/ → dist/workbench/)
 */
async function buildParts(root, code, web) {
  let failure = null;
  if (code) await compile(root).catch((e) => (failure ??= e));
  if (web) await buildWebApp(root).catch((e) => (failure ??= e));
  if (failure) throw failure;
}

/** @param {string} root */
async function buildWebApp(root) {
  const { buildWeb } = await import("./build-web.mjs");
  await buildWeb(root);
}

/** @param {string} repo */
async function compile(repo) {
  // Absolute, as esbuild's output paths are: removeOthers compares the two.
  const root = resolve(repo);
  const src = join(root, "src");
  const dist = join(root, "dist");
  // Taken before reading any source: an edit made during the build leaves the stamp stale.
  const fingerprint = sourceFingerprint(root);
  const files = sourceFiles(root);
  const result = await build({
    entryPoints: files.filter((f) => f.endsWith(".ts")).map((f) => join(src, f)),
    outdir: dist,
    outbase: src,
    format: "esm",
    platform: "node",
    target: "node20",
    sourcemap: "linked",
    sourcesContent: false,
    write: false,
    logLevel: "silent",
  });
  const outputs = new Map(result.outputFiles.map((o) => [o.path, o.contents]));
  for (const f of files.filter((f) => !f.endsWith(".ts")))
    outputs.set(join(dist, f), readFileSync(join(src, f)));
  for (const [path, contents] of outputs) writeIfChanged(path, contents);
  removeOthers(dist, new Set(outputs.keys()));
  writeAtomic(join(dist, STAMP_FILE), fingerprint);
}

/**
 * Write a file unless it already holds `contents`, so a rebuild leaves unchanged modules alone.
 * @param {string} path
 * @param {Uint8Array} contents
 */
function writeIfChanged(path, contents) {
  let current;
  try {
    current = readFileSync(path);
  } catch {
    current = null;
  }
  if (current?.equals(contents)) return;
  mkdirSync(dirname(path), { recursive: true });
  writeAtomic(path, contents);
}

/**
 * Replace a file in one step: a process starting meanwhile reads the old file or the new one, never half.
 * @param {string} path
 * @param {Uint8Array | string} contents
 */
function writeAtomic(path, contents) {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

/**
 * Delete what an earlier build left for sources that are gone.
 * @param {string} dist
 * @param {Set<string>} keep absolute paths of this build's files
 */
function removeOthers(dist, keep) {
  for (const e of readdirSync(dist, { recursive: true, withFileTypes: true })) {
    const path = join(e.parentPath ?? e.path, e.name);
    if (!e.isFile() || keep.has(path)) continue;
    const rel = relative(dist, path);
    // dist/workbench/ is the web workbench's build, which build-web.mjs owns and cleans itself.
    if (rel === STAMP_FILE || rel.startsWith(LOCK_DIR) || rel.startsWith(`${WEB_OUT}/`)) continue;
    rmSync(path, { force: true });
  }
}

/**
 * Run `fn` holding dist/.build-lock, so concurrent builds (parallel test runs, CLI starts) take turns.
 * @template T
 * @param {string} root
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
async function withBuildLock(root, fn) {
  const dist = join(root, "dist");
  const lock = join(dist, LOCK_DIR);
  mkdirSync(dist, { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code !== "EEXIST") throw e;
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      else await new Promise((done) => setTimeout(done, 25));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await buildDist();
  } catch (e) {
    process.stderr.write(`build failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  }
}
