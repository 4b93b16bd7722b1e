// One measured step of the books suite, in a process of its own so that its memory peak is its own:
// `import <workspace> <file> <project>` or `export <workspace> <project>`. Prints one JSON line:
// the step's wall time, the process's resident memory before it, and the process's peak (maxRSS).
import { exportBook } from "../../src/books/export/index.js";
import { importBook } from "../../src/books/import/index.js";
import { Workspace } from "../../src/workspace/workspace.js";

const [step, wsDir, a, b] = process.argv.slice(2);
const ws = Workspace.open(wsDir!);
const rssBefore = process.memoryUsage().rss;
const t0 = process.hrtime.bigint();
let words = 0;
if (step === "import") {
  const r = await importBook(ws, { path: a! }, { project: b! });
  words = r.plan.words;
} else if (step === "export") {
  const r = await exportBook(ws.project(a!), { format: "epub" });
  words = r.bytes.length;
} else {
  throw new Error(`unknown step ${step}`);
}
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
ws.close();
process.stdout.write(
  `${JSON.stringify({ ms, words, rssBeforeMB: rssBefore / 2 ** 20, peakMB: process.resourceUsage().maxRSS / 1024 })}\n`,
);
