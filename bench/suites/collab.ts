import type { BenchSuite } from "../lib.js";
import { jobFigures } from "../parts/jobs.js";

/**
 * The parts of this suite, each in bench/parts/ with its own figures: background jobs (spawn to
 * flow-back, reopening a large job store). The collaboration tools add theirs here the same way.
 */
const PARTS: ((report: Parameters<BenchSuite["run"]>[0]) => Promise<void>)[] = [jobFigures];

export const suite: BenchSuite = {
  name: "collab",
  description: "agent collaboration and background jobs (spawn to flow-back, job store reopen)",
  async run(report) {
    for (const part of PARTS) await part(report);
  },
};
