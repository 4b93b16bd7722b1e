import type { BenchSuite } from "../lib.js";
import { sessionScale } from "../parts/scale-sessions.js";

export const suite: BenchSuite = {
  name: "scale",
  description:
    "growth with size: sessions of 1k/10k/50k entries (screen, page, resume, serve under 20 readers, compaction); options --sessions 1000,10000,50000 --seconds 30",
  async run(report, options) {
    await sessionScale(report, options);
  },
};
