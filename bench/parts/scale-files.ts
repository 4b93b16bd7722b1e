// Growth of file costs with the novel's length: the file tree route warm and after one chapter
// write, the files screen's first render, the search index (first build, update after a write,
// queries over millions of words), subject memory append-then-search, and `nbook mcp` start-up.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureBuilt } from "../../scripts/build.mjs";
import { ProjectSearch } from "../../src/search/project-search.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { dispatch } from "../../src/tools/dispatch.js";
import type { Project } from "../../src/workspace/project.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { launchChromium } from "../../test/browser/browser.js";
import { type BenchOptions, type BenchSuite, medianMs } from "../lib.js";
import { startServe } from "./serve-process.js";

type Report = Parameters<BenchSuite["run"]>[0];

const CLI = `import { main } from ${JSON.stringify(new URL("../../dist/cli/main.js", import.meta.url).href)}; await main(process.argv);`;
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** Words per chapter: 1,000 chapters are 3M words. */
const WORDS = 3000;
const SYLLABLES =
  "ba be bo ca da de di fo ga ha ka ke la le li lo ma me mi mo na ne ni no pa pe ra re ri ro sa se so ta te ti to va ve wa".split(
    " ",
  );

/** Words made of syllables (a vocabulary of 2,000, as varied as prose), the same in every run. */
const VOCABULARY = Array.from({ length: 2000 }, (_, i) => {
  let w = "";
  for (let n = i + 7; n > 0; n = Math.floor(n / SYLLABLES.length)) w += SYLLABLES[n % SYLLABLES.length];
  return w;
});

/**
 * A chapter of WORDS words in paragraphs of 50, deterministic. One chapter in 50 has the phrase
 * "the drowned bell rang", one in 97 a line with 长安城; every chapter ends with a short Chinese line.
 */
function chapterText(i: number): string {
  let seed = i + 1;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const paras = [`# Chapter ${i + 1}`];
  for (let p = 0; p < WORDS / 50; p++) {
    const w: string[] = [];
    for (let k = 0; k < 50; k++) w.push(VOCABULARY[Math.floor(next() ** 2 * VOCABULARY.length)]!);
    if (p === 10 && i % 50 === 7) w.splice(20, 4, "the", "drowned", "bell", "rang");
    paras.push(w.join(" "));
  }
  paras.push(i % 97 === 3 ? "林岚走进长安城的雾里，钟声从城墙上传来。" : "雾里有钟声。");
  return `${paras.join("\n\n")}\n`;
}

const chapterPath = (i: number) => `manuscript/ch-${String(i + 1).padStart(5, "0")}/index.md`;

function buildProject(ws: Workspace, name: string, n: number): Project {
  const project = ws.createProject(name);
  for (let i = 0; i < n; i++) {
    const rel = chapterPath(i);
    mkdirSync(join(project.root, rel, ".."), { recursive: true });
    writeFileSync(join(project.root, rel), chapterText(i));
  }
  return project;
}

/** One request as a keep-alive client; resolves to the parsed JSON body. */
function requester(origin: string, cookie: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return (method: string, path: string, body?: unknown) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        `${origin}${path}`,
        {
          method,
          agent,
          headers: {
            cookie,
            origin,
            ...(data
              ? { "content-type": "application/json", "content-length": Buffer.byteLength(data) }
              : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            if (res.statusCode !== 200) reject(new Error(`${method} ${path}: ${res.statusCode}`));
            else resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
          });
        },
      );
      req.on("error", reject);
      req.end(data);
    });
}

/** Report a figure at each size, then its growth: the largest size's figure over the smallest's. */
function curve(
  report: Report,
  name: string,
  sizes: number[],
  values: number[],
  target?: string,
  at?: number,
) {
  sizes.forEach((n, i) => {
    const hit = target && (at === undefined ? i === sizes.length - 1 : n === at);
    report({ name: `${name} @${n}`, unit: "ms", value: values[i]!, ...(hit ? { target } : {}) });
  });
  report({
    name: `${name} growth ${sizes[sizes.length - 1]}/${sizes[0]}`,
    unit: "x",
    value: values[values.length - 1]! / Math.max(values[0]!, 1e-9),
  });
}

/** Tree route warm, PUT of one chapter (its history record and node event included), first render. */
async function treeAndScreen(
  cli: string,
  ws: Workspace,
  projects: { n: number; project: Project }[],
): Promise<{ tree: number[]; write: number[]; render: number[] }> {
  const server = await startServe(cli, ws.root);
  const browser = await launchChromium();
  const out = { tree: [] as number[], write: [] as number[], render: [] as number[] };
  try {
    const call = requester(server.origin, server.cookie);
    // The login token is spent by the cookie request: the browser is given that cookie.
    const context = await browser.newContext({ viewport: { width: 1366, height: 800 } });
    const [name, ...value] = server.cookie.split("=");
    await context.addCookies([{ name: name!, value: value.join("="), url: server.origin }]);
    const page = await context.newPage();
    for (const { n, project } of projects) {
      const base = `/api/projects/${project.name}`;
      out.tree.push(await medianMs(() => call("GET", `${base}/files/tree`), { iterations: 15, warmup: 3 }));
      // The PUT alone (its read for the version is not counted): write, history record, node event.
      const puts: number[] = [];
      for (let i = 0; i < 9; i++) {
        const path = chapterPath(i % n);
        const { version } = await call("GET", `${base}/files/read?path=${encodeURIComponent(path)}`);
        const t0 = performance.now();
        await call("PUT", `${base}/files/write`, {
          path,
          content: `${chapterText(i)}\nRevised again ${i}.\n`,
          baseVersion: version,
        });
        puts.push(performance.now() - t0);
      }
      out.write.push(puts.sort((a, b) => a - b)[4]!);
      const renders: number[] = [];
      for (let i = 0; i < 3; i++) {
        await page.goto(`${server.origin}/#/`);
        await page.getByTestId("create-project").waitFor();
        const t0 = performance.now();
        await page.goto(`${server.origin}/#/p/${project.name}/files`);
        await page.locator(`a[data-path="${chapterPath(0)}"]`).waitFor();
        renders.push(performance.now() - t0);
      }
      out.render.push(renders.sort((a, b) => a - b)[1]!);
    }
  } finally {
    await browser.close();
    server.child.kill();
  }
  return out;
}

/** Subject memory: one event appended, then a keyword search, at `events` events already there. */
async function memoryAppendSearch(ws: Workspace, events: number): Promise<number> {
  const project = ws.createProject("memory");
  const dir = join(project.root, "simulation", "subjects", "mira");
  mkdirSync(dir, { recursive: true });
  const lines: string[] = [];
  for (let i = 0; i < events; i++)
    lines.push(
      JSON.stringify({ text: `Mira heard the bell ${i} times at the mill by the river.`, tick: String(i) }),
    );
  writeFileSync(join(dir, "events.jsonl"), `${lines.join("\n")}\n`);
  const registry = createToolRegistry();
  const ctx = {
    registry,
    workspace: ws,
    project,
    mode: "normal" as const,
    profileKey: null,
    allow: "all" as const,
    approved: true,
  };
  const search = { subjectPath: "simulation/subjects/mira", query: "bell mill", sources: ["events"] };
  await dispatch({ key: "subject_rag_search", input: search }, ctx);
  let i = 0;
  return medianMs(
    async () => {
      const a = await dispatch(
        {
          key: "subject_event_append",
          input: { subjectPath: "simulation/subjects/mira", events: [{ text: `Rain ${i++}.` }] },
        },
        ctx,
      );
      const s = await dispatch({ key: "subject_rag_search", input: search }, ctx);
      if (!a.ok || !s.ok) throw new Error("subject memory bench call failed");
    },
    { iterations: 21, warmup: 3 },
  );
}

/**
 * The files screen's time to interactive in a project of `chapters` chapters: from navigating to
 * the screen until the tree's chapter links are in place (the median of three), on a warm server.
 */
export async function filesScreenInteractive(chapters: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "nb-bench-files-screen-"));
  await ensureBuilt(ROOT);
  try {
    const ws = Workspace.init(join(dir, "ws"));
    const project = buildProject(ws, "book", chapters);
    const cli = join(dir, "nbook.mjs");
    writeFileSync(cli, CLI);
    const screen = await treeAndScreen(cli, ws, [{ n: chapters, project }]);
    ws.close();
    return screen.render[0]!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every file figure of the `scale` suite. */
export async function fileScale(report: Report, options?: BenchOptions): Promise<void> {
  const sizes = (options?.get("chapters") ?? "10,100,1000,5000").split(",").map(Number);
  const dir = mkdtempSync(join(tmpdir(), "nb-bench-scale-files-"));
  await ensureBuilt(ROOT);
  try {
    const ws = Workspace.init(join(dir, "ws"));
    const projects = sizes.map((n) => ({ n, project: buildProject(ws, `p${n}`, n) }));
    const build: number[] = [];
    const update: number[] = [];
    const phrase: number[] = [];
    const rare: number[] = [];
    const common: number[] = [];
    const short: number[] = [];
    for (const { n, project } of projects) {
      const t0 = performance.now();
      const index = new ProjectSearch(project);
      index.sync();
      build.push(performance.now() - t0);
      let k = 0;
      update.push(
        await medianMs(
          () => {
            const rel = chapterPath(k++ % n);
            writeFileSync(join(project.root, rel), `${chapterText(k + 7)}\nA lantern ${k}.\n`);
            index.update([rel]);
          },
          { iterations: 11, warmup: 2 },
        ),
      );
      phrase.push(await medianMs(() => index.search({ query: '"drowned bell rang"' }), { iterations: 21 }));
      common.push(await medianMs(() => index.search({ query: VOCABULARY[0]! }), { iterations: 21 }));
      rare.push(await medianMs(() => index.search({ query: "长安城" }), { iterations: 21 }));
      short.push(await medianMs(() => index.search({ query: "长安" }), { iterations: 11 }));
      index.close();
    }
    curve(report, "search index first build", sizes, build, "< 10 s at 1,000 chapters", 1000);
    curve(report, "search index update after a chapter write", sizes, update, "< 20 ms");
    curve(
      report,
      'search "drowned bell rang" (in 1 chapter of 50; 3M words at 1,000)',
      sizes,
      phrase,
      "< 50 ms",
      1000,
    );
    curve(report, "search the commonest word (20 hits, the first found)", sizes, common);
    curve(report, "search 长安城 (in 1 chapter of 97)", sizes, rare, "< 50 ms", 1000);
    curve(report, "search 长安 (2 characters: a scan, below the trigram index)", sizes, short);
    const cli = join(dir, "nbook.mjs");
    writeFileSync(cli, CLI);
    const screen = await treeAndScreen(cli, ws, projects);
    curve(report, "tree route warm", sizes, screen.tree, "< 20 ms at 1,000", 1000);
    curve(
      report,
      "PUT one chapter (write, history record, node event; search index updated just after the answer)",
      sizes,
      screen.write,
      "< 20 ms",
    );
    curve(report, "files screen first render", sizes, screen.render, "< 300 ms");
    report({
      name: "subject memory append then search @10000 events",
      unit: "ms",
      value: await memoryAppendSearch(ws, 10_000),
      target: "< 30 ms",
    });
    ws.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
