import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type BenchResult, type BenchSuite, parseBenchArgs, round } from "./lib.js";

// Usage: npm run bench -- [suite…] [--json] [--name value…]. Each file bench/suites/<name>.ts exports
// `suite` named <name>; only the requested suites are loaded (all of them when none is named). Options
// such as `--patches 1000000` (world) go to every suite run.
const { suites: wanted, json, options } = parseBenchArgs(process.argv.slice(2));

const dir = fileURLToPath(new URL("./suites/", import.meta.url));
const available = readdirSync(dir)
  .filter((f) => f.endsWith(".ts"))
  .map((f) => f.slice(0, -3))
  .sort();
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length) {
  process.stderr.write(`unknown suite(s): ${unknown.join(", ")}; available: ${available.join(", ")}\n`);
  process.exit(2);
}

for (const name of wanted.length ? wanted : available) {
  const { suite } = (await import(new URL(`./suites/${name}.ts`, import.meta.url).href)) as {
    suite: BenchSuite;
  };
  if (!json) process.stdout.write(`\n== ${suite.name}: ${suite.description}\n`);
  await suite.run((r) => {
    const full: BenchResult = { suite: suite.name, ...r, value: round(r.value) };
    if (r.baseline !== undefined) full.baseline = round(r.baseline);
    if (r.ratio !== undefined) full.ratio = round(r.ratio);
    if (json) process.stdout.write(`${JSON.stringify(full)}\n`);
    else {
      const base =
        full.baseline !== undefined ? `  (baseline ${full.baseline} ${full.unit}, ratio ${full.ratio}x)` : "";
      const target = full.target ? `  target: ${full.target}` : "";
      process.stdout.write(
        `${full.name.padEnd(36)}${String(full.value).padStart(12)} ${full.unit}${base}${target}\n`,
      );
    }
  }, options);
}
