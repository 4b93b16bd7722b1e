import { ensureBuilt } from "../scripts/build.mjs";

/**
 * Build dist/ once before any test runs: the tests that spawn ./bin/nbook run the compiled build,
 * so none of them pays for a rebuild (or waits on another's) inside its own time limit.
 */
export default async function setup(): Promise<void> {
  await ensureBuilt();
}
