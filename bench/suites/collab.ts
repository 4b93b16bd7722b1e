import type { BenchSuite } from "../lib.js";
import { invokeAgentFigures } from "../parts/invoke-agent.js";
import { jobFigures } from "../parts/jobs.js";

/**
 * The parts of this suite, each in bench/parts/ with its own figures: a foreground invoke_agent's
 * overhead, background jobs (spawn to flow-back, reopening a large job store).
 */
const PARTS: ((report: Parameters<BenchSuite["run"]>[0]) => Promise<void>)[] = [
  invokeAgentFigures,
  jobFigures,
];

export const suite: BenchSuite = {
  name: "collab",
  description:
    "agent collaboration (foreground invoke_agent overhead) and background jobs (spawn to flow-back, job store reopen)",
  async run(report) {
    for (const part of PARTS) await part(report);
  },
};
