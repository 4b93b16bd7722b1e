import { existsSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ServeHandle, startServer } from "../../src/serve/server.js";
import { makeTestBed, type TestBed } from "../helpers.js";
import { pacedUpload } from "../upload.js";

let bed: TestBed;
let server: ServeHandle;
afterEach(async () => {
  await server.close();
  bed.cleanup();
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe("over a real connection (127.0.0.1, any free port)", () => {
  it("a tab that closes its event stream is forgotten by the server; a connected one gets events as they happen", async () => {
    bed = makeTestBed();
    server = await startServer({ workspace: bed.ws, host: "127.0.0.1", port: 0, log: () => {} });
    const login = await fetch(server.loginUrl, { redirect: "manual" });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
    const tabs = [new AbortController(), new AbortController()];
    const streams = await Promise.all(
      tabs.map((t) => fetch(`${server.url}/api/events`, { headers: { cookie }, signal: t.signal })),
    );
    await until(() => server.hub.events.subscribers === 2);
    expect(server.hub.events.subscribers).toBe(2);

    tabs[0].abort();
    await until(() => server.hub.events.subscribers === 1);
    expect(server.hub.events.subscribers).toBe(1);

    server.hub.events.publish("project_created", { project: { name: "x" } });
    const reader = (streams[1].body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    while (!text.includes("event: project_created")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    // The stream opened with a comment at once; the event follows it.
    expect(text.startsWith(": connected\n\n")).toBe(true);
    expect(text).toContain("event: project_created");
    tabs[1].abort();
    await until(() => server.hub.events.subscribers === 0);
    expect(server.hub.events.subscribers).toBe(0);
  });

  it("answers a request naming another Host with 403, as a DNS-rebinding page would send it", async () => {
    bed = makeTestBed();
    server = await startServer({ workspace: bed.ws, host: "127.0.0.1", port: 0, log: () => {} });
    const port = new URL(server.url).port;
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port, path: "/api/projects", headers: { host: `evil.example:${port}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it("answers a file write over the 8 MiB cap with 413 and the JSON error, not a reset connection", async () => {
    bed = makeTestBed("novel");
    server = await startServer({ workspace: bed.ws, host: "127.0.0.1", port: 0, log: () => {} });
    const login = await fetch(server.loginUrl, { redirect: "manual" });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
    const { host, port } = new URL(server.url);
    const body = Buffer.from(
      JSON.stringify({ path: "manuscript/huge.md", content: "x".repeat(9 * 1024 * 1024), baseVersion: null }),
    );
    const headers = { cookie, origin: `http://${host}`, "content-type": "application/json" };
    const put = (withLength: boolean) =>
      pacedUpload(
        { port, method: "PUT", path: "/api/projects/novel/files/write", headers },
        body,
        withLength,
      );
    for (const withLength of [true, false]) {
      const r = await put(withLength);
      expect(r.error, `with length: ${withLength}`).toBeUndefined();
      expect(r.status).toBe(413);
      expect(JSON.parse(r.text)).toMatchObject({
        error: { code: "limit_exceeded", message: expect.stringContaining("larger than"), fields: [] },
      });
    }
    expect(existsSync(join(bed.project.root, "manuscript", "huge.md"))).toBe(false);
  });
});
