import type { BenchSuite } from "../lib.js";
import { fileScale } from "../parts/scale-files.js";
import { sessionScale } from "../parts/scale-sessions.js";

export const suite: BenchSuite = {
  name: "scale",
  description:
    "growth with size: sessions of 1k/10k/50k entries (screen, page, resume, serve under 20 readers, compaction); projects of 10/100/1k/5k chapters (tree, files screen, search index); subject memory at 10k events; options --sessions 1000,10000,50000 --seconds 30 --chapters 10,100,1000,5000 --only sessions|files",
  async run(report, options) {
    const only = options?.get("only");
    if (only !== undefined && only !== "sessions" && only !== "files")
      throw new Error(`--only takes sessions or files, not "${only}"`);
    if (only !== "files") await sessionScale(report, options);
    if (only !== "sessions") await fileScale(report, options);
  },
};
