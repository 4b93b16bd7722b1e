// @ts-check
// Builds the web workbench (web/, a Preact app) into dist/workbench/ with Vite, which `nbook serve`
// serves as static files. Imported lazily by build.mjs, so a CLI-only rebuild never loads Vite.
import { renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { STAMP_FILE, WEB_OUT, webFingerprint } from "./build-stamp.mjs";

/**
 * Build web/ into dist/workbench/ and stamp it with the inputs it was built from.
 * @param {string} repo the repository
 */
export async function buildWeb(repo) {
  const root = resolve(repo);
  // Taken before reading any source: an edit made during the build leaves the stamp stale.
  const fingerprint = webFingerprint(root);
  const { build } = await import("vite");
  await build({
    configFile: join(root, "web", "vite.config.ts"),
    root: join(root, "web"),
    logLevel: "warn",
    build: { outDir: join(root, "dist", WEB_OUT), emptyOutDir: true },
  });
  const stamp = join(root, "dist", WEB_OUT, STAMP_FILE);
  writeFileSync(`${stamp}.${process.pid}.tmp`, fingerprint);
  renameSync(`${stamp}.${process.pid}.tmp`, stamp);
}
