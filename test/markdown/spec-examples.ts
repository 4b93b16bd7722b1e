import { readFileSync } from "node:fs";

/** One example of the CommonMark spec: its number, section (nearest ## heading, else #) and texts. */
export interface SpecExample {
  number: number;
  section: string;
  markdown: string;
  html: string;
}

const FENCE = "`".repeat(32);

/** The examples of a CommonMark spec.txt, in order. */
export function readSpecExamples(file: string): SpecExample[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const out: SpecExample[] = [];
  let section = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const h = /^#{1,2} (.+)$/.exec(line);
    if (h) section = h[1]!.trim();
    if (line !== `${FENCE} example`) continue;
    const md: string[] = [];
    const html: string[] = [];
    let target = md;
    for (i++; i < lines.length && lines[i] !== FENCE; i++) {
      if (lines[i] === "." && target === md) target = html;
      else target.push(lines[i]!);
    }
    const text = (a: string[]) => (a.length ? `${a.join("\n")}\n` : "").replace(/→/g, "\t");
    out.push({ number: out.length + 1, section, markdown: text(md), html: text(html) });
  }
  return out;
}
