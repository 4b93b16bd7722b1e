import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";

// The tool registry imports every tool module on each start (`nbook tool read`, MCP), so the web
// tools must not load their HTTP client, DOM, extraction or decoding packages until they run; and
// the DOM and extraction packages load only in the extraction worker, never on the main thread.
const CLIENT = ["undici", "iconv-lite", "ipaddr.js"];
const DOM = ["linkedom", "@mozilla/readability", "turndown", "htmlparser2"];
const HEAVY = [...CLIENT, ...DOM];
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

const dist = (path: string) =>
  JSON.stringify(pathToFileURL(fileURLToPath(new URL(`../../dist/${path}`, import.meta.url))).href);

it("loading every tool loads none of the web packages; running web_fetch's domain loads its client, not the DOM", () => {
  const idle = packagesLoadedBy(`await import(${JSON.stringify(pathToFileURL(BUILTIN).href)});`);
  expect(idle.has("zod")).toBe(true);
  expect(HEAVY.filter((p) => idle.has(p))).toEqual([]);
  const used = packagesLoadedBy(
    `await import(${JSON.stringify(pathToFileURL(BUILTIN).href)});
await import(${dist("web/fetch/index.js")});`,
  );
  expect(CLIENT.filter((p) => !used.has(p))).toEqual([]);
  expect(DOM.filter((p) => used.has(p))).toEqual([]);
});

it("the compiled tree extracts a page in its worker (the worker entry sits beside the code)", () => {
  const html = `<html><head><title>Bell</title></head><body><article><p>${"The bell rang under the sea, twice. ".repeat(20)}</p></article></body></html>`;
  const main = join(dir, "extract.mjs");
  writeFileSync(
    main,
    `const { extractInWorker, closeExtraction } = await import(${dist("web/fetch/extraction.js")});
const r = await extractInWorker(${JSON.stringify(html)}, "https://example.com/");
process.stdout.write(JSON.stringify(r));
await closeExtraction();`,
  );
  const r = spawnSync(process.execPath, [main], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout);
  expect(out).toMatchObject({ title: "Bell", method: "readability", format: "markdown" });
  expect(out.content).toContain("The bell rang under the sea, twice.");
});
