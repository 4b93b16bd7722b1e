import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Spawned-CLI tests run ./bin/nbook on the compiled dist/, built here once per run.
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Processes, not threads: in-process CLI tests (runNbookInProcess) change directory, which a
    // worker thread cannot.
    pool: "forks",
    // A worker runs its files one after another in one module graph instead of importing the
    // sources afresh for every file (on 2 cores: 42 s → 24 s for src/). Files restore what they
    // change in the process (environment, mocks).
    isolate: false,
    // Many tests wait on timeouts, child processes and disk, so two workers overlap even on two
    // cores (vitest's default is one fewer than the cores: a single worker there).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
