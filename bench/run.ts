import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type BenchResult, type BenchSuite, round } from "./lib.js";

// Usage: npm run bench -- [suite…] [--json]. Each file in bench/suites/ exports `suite`.
const args = process.argv.slice(2);
const json = args.includes("--json");
const wanted = args.filter((a) => !a.startsWith("--"));

const dir = fileURLToPath(new URL("./suites/", import.meta.url));
const suites: BenchSuite[] = [];
for (const f of readdirSync(dir).filter((f) => f.endsWith(".ts")).sort()) {
  const mod = (await import(new URL(`./suites/${f}`, import.meta.url).href)) as { suite: BenchSuite };
  suites.push(mod.suite);
}
const unknown = wanted.filter((w) => !suites.some((s) => s.name === w));
if (unknown.length) {
  process.stderr.write(`unknown suite(s): ${unknown.join(", ")}; available: ${suites.map((s) => s.name).join(", ")}\n`);
  process.exit(2);
}
for (const s of suites.filter((s) => wanted.length === 0 || wanted.includes(s.name))) {
  if (!json) process.stdout.write(`\n== ${s.name}: ${s.description}\n`);
  await s.run((r) => {
    const full: BenchResult = { suite: s.name, ...r, value: round(r.value) };
    if (r.baseline !== undefined) full.baseline = round(r.baseline);
    if (r.ratio !== undefined) full.ratio = round(r.ratio);
    if (json) process.stdout.write(`${JSON.stringify(full)}\n`);
    else {
      const base = full.baseline !== undefined ? `  (baseline ${full.baseline} ${full.unit}, ratio ${full.ratio}x)` : "";
      const target = full.target ? `  target: ${full.target}` : "";
      process.stdout.write(`${full.name.padEnd(36)}${String(full.value).padStart(12)} ${full.unit}${base}${target}\n`);
    }
  });
}
