import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { exportBook } from "../../src/books/export/index.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { type BenchSuite, intOption } from "../lib.js";

const STEP = fileURLToPath(new URL("../parts/books-step.ts", import.meta.url));
const CHAPTERS = 40;

const VOCAB = (
  "the bell rang under water and Mira counted three times before the causeway shook she had never " +
  "heard it ring on a clear day Tomas kept the ledger in the Bell House where ninety years of floods " +
  "were written in three hands of ink reeds black oak tide marsh lantern ferry salt river cold light " +
  "morning evening quiet slow bright sudden old young stone rope boat door window page spine cut"
).split(" ");

/** A deterministic chapter of `words` words: paragraphs of sentences, some italics, two scene breaks, a footnote. */
function chapter(n: number, words: number, seed: { s: number }): string {
  const rand = () => {
    seed.s = (seed.s * 1103515245 + 12345) % 2 ** 31;
    return seed.s / 2 ** 31;
  };
  const out: string[] = [`# Chapter ${n}`, ""];
  let left = words;
  let para = 0;
  while (left > 0) {
    const sentences: string[] = [];
    for (let k = 0; k < 5 && left > 0; k++) {
      const len = Math.min(left, 8 + Math.floor(rand() * 12));
      const w = Array.from({ length: len }, () => VOCAB[Math.floor(rand() * VOCAB.length)]!);
      if (rand() < 0.2) w[1] = `*${w[1]}*`;
      w[0] = w[0]![0]!.toUpperCase() + w[0]!.slice(1);
      sentences.push(`${w.join(" ")}.`);
      left -= len;
    }
    if (para === 3) sentences[0] += "[^1]";
    out.push(sentences.join(" "), "");
    if (++para % 12 === 0) out.push("* * *", "");
  }
  out.push(`[^1]: A note on chapter ${n}.`, "");
  return out.join("\n");
}

interface StepResult {
  ms: number;
  words: number;
  rssBeforeMB: number;
  peakMB: number;
}

function runStep(args: string[]): Promise<StepResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", "tsx", STEP, ...args],
      { maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${args[0]} step failed: ${stderr || err.message}`));
        else resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as StepResult);
      },
    );
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export const suite: BenchSuite = {
  name: "books",
  description:
    "import of a generated 120,000-word novel as DOCX (40 chapters, italics, footnotes, scene breaks) and the EPUB export of the imported book, each in a process of its own: median wall time and memory peak; --words N, --runs N (default 3)",
  async run(report, options) {
    const words = intOption(options, "words", 120_000);
    const runs = intOption(options, "runs", 3);
    const dir = mkdtempSync(join(tmpdir(), "nbook-bench-books-"));
    try {
      const ws = Workspace.init(join(dir, "ws"));
      // The DOCX to import is the export of a generated project: a file a word processor would write.
      const source = ws.createProject("source", { title: "The Long Tide" });
      const seed = { s: 42 };
      for (let n = 1; n <= CHAPTERS; n++) {
        const folder = join(source.root, "manuscript", `${String(n).padStart(2, "0")}-chapter-${n}`);
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, "index.md"), chapter(n, Math.round(words / CHAPTERS), seed));
      }
      const docx = join(dir, "long-tide.docx");
      writeFileSync(docx, (await exportBook(source, { format: "docx" })).bytes);
      ws.close();

      const imports: StepResult[] = [];
      const exports: StepResult[] = [];
      for (let i = 0; i < runs; i++) {
        imports.push(await runStep(["import", join(dir, "ws"), docx, `imported-${i}`]));
        exports.push(await runStep(["export", join(dir, "ws"), `imported-${i}`]));
      }
      const imported = imports[0]!.words;
      report({
        name: `import_docx_${Math.round(imported / 1000)}k_words`,
        unit: "ms",
        value: median(imports.map((r) => r.ms)),
        target: "< 10000 ms",
      });
      report({ name: "import_docx_peak_rss", unit: "MB", value: Math.max(...imports.map((r) => r.peakMB)) });
      report({
        name: "import_docx_rss_growth",
        unit: "MB",
        value: Math.max(...imports.map((r) => r.peakMB - r.rssBeforeMB)),
      });
      report({
        name: `export_epub_${Math.round(imported / 1000)}k_words`,
        unit: "ms",
        value: median(exports.map((r) => r.ms)),
        target: "< 5000 ms",
      });
      report({ name: "export_epub_peak_rss", unit: "MB", value: Math.max(...exports.map((r) => r.peakMB)) });
      report({
        name: "export_epub_rss_growth",
        unit: "MB",
        value: Math.max(...exports.map((r) => r.peakMB - r.rssBeforeMB)),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
