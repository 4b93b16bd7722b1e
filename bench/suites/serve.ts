import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { startServer } from "../../src/serve/server.js";
import { DEFAULT_WEB_ROOT } from "../../src/serve/static.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { dispatch } from "../../src/tools/dispatch.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { type BenchSuite, intOption, medianMs } from "../lib.js";
import { filesScreenInteractive } from "../parts/scale-files.js";

const SUBSCRIBERS = 20;

/** Read an SSE body, counting `event:` blocks, until it ends or is cancelled. */
async function countEvents(body: ReadableStream<Uint8Array>, onEvent: () => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      if (buffer.startsWith("id: ")) onEvent();
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
    }
  }
}

export const suite: BenchSuite = {
  name: "serve",
  description:
    "nbook serve over HTTP on 127.0.0.1: file read round trip, SSE fan-out, workbench page TTFB, the workbench's gzipped JS, the files screen's time to interactive at 1,000 chapters",
  async run(report, options) {
    const dir = mkdtempSync(join(tmpdir(), "nbook-bench-serve-"));
    const ws = Workspace.init(join(dir, "ws"));
    const project = ws.createProject("bench", { sample: true });
    writeFileSync(join(project.root, "lorebook", "four-k.md"), "x".repeat(63).concat("\n").repeat(64));
    // The built workbench when there is one; else a page of the same kind (the server does the same work).
    let webRoot = DEFAULT_WEB_ROOT;
    if (!existsSync(join(webRoot, "index.html"))) {
      webRoot = join(dir, "web");
      mkdirSync(webRoot);
      writeFileSync(
        join(webRoot, "index.html"),
        `<!doctype html><html><head><meta charset="utf-8"><title>NeuroBook</title><script type="module" src="/assets/index-abc.js"></script><link rel="stylesheet" href="/assets/index-abc.css"></head><body><div id="app"></div></body></html>${" ".repeat(1500)}`,
      );
    }
    const server = await startServer({ workspace: ws, host: "127.0.0.1", port: 0, webRoot, log: () => {} });
    const login = await fetch(server.loginUrl, { redirect: "manual" });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
    try {
      // 1. A file read through the API vs the read tool through the same dispatch, in-process.
      // A lean keep-alive client (as a browser keeps its connection): fetch's own client costs more
      // than the server does, and would be measured instead of it.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const url = `${server.url}/api/projects/bench/files/read?path=lorebook/four-k.md`;
      const apiRead = () =>
        new Promise<void>((resolve, reject) => {
          const req = http.request(url, { agent, headers: { cookie } }, (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("end", () => {
              if (res.statusCode !== 200) reject(new Error(`read failed: ${res.statusCode}`));
              else resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
            });
          });
          req.on("error", reject);
          req.end();
        });
      const registry = createToolRegistry();
      const toolRead = async () => {
        const r = await dispatch(
          { key: "read", input: { path: "lorebook/four-k.md" } },
          { registry, workspace: ws, project, mode: "normal", profileKey: null, allow: "all" },
        );
        if (!r.ok) throw new Error("read failed");
      };
      // Alternating blocks, so a burst of load from elsewhere on the machine hits both sides alike.
      const apiBlocks: number[] = [];
      const toolBlocks: number[] = [];
      for (let b = 0; b < 6; b++) {
        apiBlocks.push(await medianMs(apiRead, { iterations: 100, warmup: 10 }));
        toolBlocks.push(await medianMs(toolRead, { iterations: 100, warmup: 10 }));
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      const api = median(apiBlocks);
      const tool = median(toolBlocks);
      report({ name: "api_file_read_round_trip_median", unit: "ms", value: api });
      report({ name: "tool_file_read_in_process_median", unit: "ms", value: tool });
      report({ name: "api_overhead_over_tool", unit: "ms", value: api - tool, target: "< 1 ms" });
      agent.destroy();

      // 2. One session's stream fanned out to 20 subscribers over HTTP, paced so no reader overflows.
      const events = intOption(options, "events", 20_000);
      const session = server.hub.store.createSession({
        profile: new ProfileCatalog(registry, ws, project).get("leader.default"),
        project: "bench",
      });
      const log = server.hub.sessionLog(session.id);
      const received = new Array<number>(SUBSCRIBERS).fill(0);
      const streams = await Promise.all(
        received.map(() => fetch(`${server.url}/api/sessions/${session.id}/events`, { headers: { cookie } })),
      );
      const readers = streams.map((res, i) =>
        countEvents(res.body as ReadableStream<Uint8Array>, () => received[i]++).catch(() => {}),
      );
      const caughtUp = (n: number) =>
        new Promise<void>((resolve) => {
          const check = () => (received.every((r) => r >= n) ? resolve() : setImmediate(check));
          check();
        });
      const batch = 200;
      const t0 = process.hrtime.bigint();
      for (let sent = 0; sent < events; ) {
        for (let i = 0; i < batch && sent < events; i++, sent++) {
          log.publish("text_delta", {
            type: "text_delta",
            sessionId: session.id,
            runId: "bench",
            text: "The bell rang under a clear sky. ",
          });
        }
        await caughtUp(sent);
      }
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      if (log.subscribers !== SUBSCRIBERS) throw new Error("a subscriber was dropped");
      report({ name: "sse_fanout_20_events_per_s", unit: "ops/s", value: events / seconds });
      report({
        name: "sse_fanout_20_deliveries_per_s",
        unit: "ops/s",
        value: (events * SUBSCRIBERS) / seconds,
      });
      log.closeAll();
      await Promise.all(readers);

      // 3. Time to the first byte of the workbench page.
      const ttfb = await medianMs(
        async () => {
          const res = await fetch(`${server.url}/`);
          const reader = (res.body as ReadableStream<Uint8Array>).getReader();
          await reader.read();
          await reader.cancel();
        },
        { iterations: 300, warmup: 30 },
      );
      report({ name: "workbench_page_ttfb_median", unit: "ms", value: ttfb, target: "< 50 ms" });

      // 4. The workbench's JavaScript as the browser downloads it (gzip), when it is built.
      const assets = join(DEFAULT_WEB_ROOT, "assets");
      if (existsSync(assets)) {
        const gz = readdirSync(assets)
          .filter((f) => f.endsWith(".js"))
          .reduce((n, f) => n + gzipSync(readFileSync(join(assets, f)), { level: 9 }).length, 0);
        report({ name: "workbench_js_gzip", unit: "KiB", value: gz / 1024, target: "< 250 KB" });
      }

      // 5. The files screen in Chromium at 1,000 chapters (a served project of its own).
      const chapters = intOption(options, "chapters", 1000);
      report({
        name: `files_screen_time_to_interactive_${chapters}_chapters`,
        unit: "ms",
        value: await filesScreenInteractive(chapters),
        target: "< 500 ms",
      });
    } finally {
      await server.close();
      ws.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
