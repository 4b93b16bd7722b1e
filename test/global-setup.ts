import { ensureBuilt } from "../scripts/build.mjs";

/**
 * Build dist/ once before any test runs: the tests that spawn ./bin/nbook run the compiled build,
 * so none of them pays for a rebuild (or waits on another's) inside its own time limit. A source that
 * does not compile fails those tests (./bin/nbook reports the error), not the whole run.
 */
export default async function setup(): Promise<void> {
  try {
    await ensureBuilt();
  } catch (e) {
    process.stderr.write(`dist/ could not be built, tests that start ./bin/nbook will fail: ${String(e)}\n`);
  }
}
