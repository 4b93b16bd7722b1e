import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";

// The tool registry imports every tool module on each start (`nbook tool read`, MCP), so the web
// tools must not load their HTTP client, DOM, extraction or decoding packages until they run.
const HEAVY = ["undici", "linkedom", "@mozilla/readability", "turndown", "iconv-lite", "ipaddr.js"];
const BUILTIN = fileURLToPath(new URL("../../dist/tools/builtin.js", import.meta.url));
const HOOKS = `import { appendFileSync } from "node:fs";
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, next) { appendFileSync(log, url + "\\n"); return next(url, context); }
`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "nbook-web-lazy-"));
  writeFileSync(join(dir, "hooks.mjs"), HOOKS);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Packages loaded by a Node process that runs `script` (an ES module body) under the load hook. */
function packagesLoadedBy(script: string): Set<string> {
  const log = join(dir, `log-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(log, "");
  const main = join(dir, `main-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    main,
    `import { register } from "node:module";
register(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)}, { data: { log: ${JSON.stringify(log)} } });
${script}`,
  );
  const r = spawnSync(process.execPath, [main], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  const urls = readFileSync(log, "utf8").split("\n").filter(Boolean);
  return new Set(
    urls.map((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1]).filter((p): p is string => !!p),
  );
}

it("loading every tool loads none of the web packages; running web_fetch's domain does", () => {
  const idle = packagesLoadedBy(`await import(${JSON.stringify(pathToFileURL(BUILTIN).href)});`);
  expect(idle.has("zod")).toBe(true);
  expect(HEAVY.filter((p) => idle.has(p))).toEqual([]);
  const used = packagesLoadedBy(
    `await import(${JSON.stringify(pathToFileURL(BUILTIN).href)});
await import(${JSON.stringify(pathToFileURL(fileURLToPath(new URL("../../dist/web/fetch/index.js", import.meta.url))).href)});`,
  );
  expect(HEAVY.filter((p) => !used.has(p))).toEqual([]);
});
