import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent } from "undici";
import { FETCH_DEFAULTS } from "../../src/web/config.js";
import { fetchRaw, guardedAgent, parseFetchUrl } from "../../src/web/fetch/client.js";
import { extractHtml } from "../../src/web/fetch/extract.js";
import { type BenchSuite, round } from "../lib.js";

const WORDS =
  "the tide bell rang under black water while the town counted strokes and fishermen wrote logs of the drowned tower".split(
    " ",
  );

/** A sentence of `n` words, deterministic for a seed. */
function sentence(seed: number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[(seed * 7 + i * 13) % WORDS.length]);
  const s = out.join(" ");
  return `${s[0].toUpperCase()}${s.slice(1)}.`;
}

/** About `bytes` of article: paragraphs with emphasis and links, a heading and a list now and then. */
function articleBody(bytes: number): string {
  const parts: string[] = ["<h1>The Drowned Bell of Karsk</h1>"];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    let block = `<p>${sentence(i, 30)} It rang <em>twice</em>, then <strong>once more</strong>; see <a href="/notes/${i}">note ${i}</a>. ${sentence(i + 1, 25)}</p>`;
    if (i % 12 === 0) block += `<h2>Part ${i / 12 + 1}</h2>`;
    if (i % 20 === 5)
      block += `<ul><li>${sentence(i, 6)}</li><li>${sentence(i + 2, 6)}</li><li>${sentence(i + 3, 6)}</li></ul>`;
    parts.push(block);
    size += block.length;
  }
  return parts.join("\n");
}

/**
 * A ~300 KB news-style article page as sites serve it: inline styles and scripts in the head, a
 * large navigation menu, a sidebar of related links, the article (~150 KB of markup), comments and a
 * footer.
 */
function articlePage(): string {
  const css = Array.from(
    { length: 900 },
    (_, i) => `.c${i}{margin:${i % 9}px;color:#${(i * 4099).toString(16).slice(0, 6).padEnd(6, "0")}}`,
  ).join("\n");
  const js = Array.from(
    { length: 1200 },
    (_, i) => `window.t${i}=function(a){return a*${i}+"${"x".repeat(20)}";};`,
  ).join("\n");
  const nav = Array.from(
    { length: 400 },
    (_, i) => `<li class="menu-item"><a href="/section/${i}">Section ${i}</a></li>`,
  ).join("");
  const related = Array.from(
    { length: 150 },
    (_, i) => `<li><a href="/story/${i}">${sentence(i, 8)}</a></li>`,
  ).join("");
  const comments = Array.from(
    { length: 60 },
    (_, i) =>
      `<div class="comment"><span class="author">reader${i}</span><p>${sentence(i + 5, 18)}</p></div>`,
  ).join("");
  const page = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>The Drowned Bell | Tide Almanac</title>
<meta name="description" content="How the bell of Karsk went under the sea.">
<style>${css}</style><script>${js}</script></head><body>
<header><nav><ul>${nav}</ul></nav></header>
<div class="layout"><main><article>${articleBody(150_000)}</article>
<section class="comments">${comments}</section></main>
<aside class="sidebar"><h3>Related</h3><ul>${related}</ul></aside></div>
<footer>${sentence(1, 40)}</footer></body></html>`;
  return page;
}

/** ~300 KB of nothing but article paragraphs: every byte goes through Readability and turndown. */
function allTextPage(): string {
  return `<!DOCTYPE html><html><head><title>Long</title></head><body><article>${articleBody(300_000)}</article></body></html>`;
}

/** Median wall and CPU milliseconds of `fn` over `iterations` runs, after a warm-up of five. */
function timed(fn: () => unknown, iterations: number): { wall: number; cpu: number } {
  for (let i = 0; i < 5; i++) fn();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    fn();
    wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function loopbackServer(body: string) {
  const server = createServer((req, res) => {
    const close = req.url?.startsWith("/close");
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      ...(close ? { connection: "close" } : {}),
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export const suite: BenchSuite = {
  name: "web",
  description:
    "web_fetch: extraction of a 300 KB article page (Readability + turndown over linkedom); SSRF-guarded vs unguarded loopback fetch",
  async run(report) {
    const page = articlePage();
    const text = allTextPage();
    const url = "https://news.example.com/2025/05/drowned-bell.html";
    const check = extractHtml(page, url);
    if (!check.content.includes("## Part 2") || check.method !== "readability") {
      throw new Error("the article page did not extract as an article");
    }
    // Wall time, and the CPU time the process spent (all threads, so garbage collection counts):
    // on a loaded machine the wall time waits for a core, the CPU time does not.
    for (const [name, html, iterations] of [
      [`extract_article_page_${Math.round(page.length / 1024)}kb`, page, 30],
      [`extract_all_article_text_${Math.round(text.length / 1024)}kb`, text, 15],
    ] as const) {
      const t = timed(() => extractHtml(html, url), iterations);
      const target = name.startsWith("extract_article") ? { target: "< 100 ms" } : {};
      report({ name, unit: "ms", value: round(t.wall), ...target });
      report({ name: `${name}_cpu`, unit: "ms", value: round(t.cpu), ...target });
    }

    const server = await loopbackServer("<html><body><p>small loopback page</p></body></html>");
    const guarded = guardedAgent(["127.0.0.1"]);
    const plain = new Agent();
    const limits = { ...FETCH_DEFAULTS, allowPrivate: ["127.0.0.1"] };
    try {
      for (const [name, path] of [
        ["fetch_loopback_keepalive", "/page"],
        ["fetch_loopback_new_connection", "/close"],
      ] as const) {
        const target = parseFetchUrl(`http://127.0.0.1:${server.port}${path}`);
        // Interleaved, so both see the same machine load.
        const times = { guarded: [] as number[], plain: [] as number[] };
        const once = async (dispatcher: Agent, into: number[]) => {
          const t0 = process.hrtime.bigint();
          await fetchRaw(target, limits, { dispatcher });
          into.push(Number(process.hrtime.bigint() - t0) / 1e6);
        };
        for (let i = 0; i < 30; i++) {
          await once(guarded, []);
          await once(plain, []);
        }
        for (let i = 0; i < 400; i++) {
          await once(guarded, times.guarded);
          await once(plain, times.plain);
        }
        const viaGuard = median(times.guarded);
        const viaPlain = median(times.plain);
        report({
          name: `${name}_guarded_vs_unguarded`,
          unit: "ms",
          value: round(viaGuard),
          baseline: round(viaPlain),
          ratio: round(viaPlain / viaGuard),
          target: "ratio near 1 (the guard checks each new connection, nothing per request)",
        });
      }
    } finally {
      await plain.close();
      await server.close();
    }
  },
};
