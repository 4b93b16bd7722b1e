import { afterEach, describe, expect, it } from "vitest";
import { hashPassword } from "../../src/serve/auth.js";
import { clientKey } from "../../src/serve/client-key.js";
import { startServer } from "../../src/serve/server.js";
import { makeTestBed } from "../helpers.js";
import { ORIGIN, PORT, type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
afterEach(async () => {
  await fx?.close();
});

describe("logging in", () => {
  it("without a cookie every API route is 401 with the JSON error envelope", async () => {
    fx = await serveFixture();
    for (const path of ["/api/projects", "/api/auth/me", "/api/events", "/api/projects/novel/files/tree"]) {
      const res = await fx.app.request(`${ORIGIN}${path}`);
      expect(res.status, path).toBe(401);
      const body = (await res.json()) as { error: { code: string; message: string; fields: unknown[] } };
      expect(body.error.code).toBe("not_allowed");
      expect(body.error.fields).toEqual([]);
      expect(body.error.message).toContain("login link");
    }
    const forged = await fx.app.request(`${ORIGIN}/api/projects`, {
      headers: { cookie: "nbook_session=forged" },
    });
    expect(forged.status).toBe(401);
  });

  it("the login token gives an HttpOnly SameSite=Strict cookie once; a second use or a wrong token is refused", async () => {
    fx = await serveFixture();
    // The fixture already used the token once.
    const again = await fx.app.request(`${ORIGIN}/login?token=${fx.gate.loginToken}`);
    expect(again.status).toBe(401);
    expect(again.headers.get("set-cookie")).toBeNull();
    // The same link opened again in the browser it logged in: back to the workbench, no new session.
    const loggedIn = await fx.app.request(`${ORIGIN}/login?token=${fx.gate.loginToken}`, {
      headers: { cookie: fx.cookie },
    });
    expect(loggedIn.status).toBe(303);
    expect(loggedIn.headers.get("set-cookie")).toBeNull();

    const fresh = await serveFixture();
    try {
      const wrong = await fresh.app.request(`${ORIGIN}/login?token=${"x".repeat(43)}`);
      expect(wrong.status).toBe(401);
      const first = await fresh.app.request(`${ORIGIN}/login?token=${fresh.gate.loginToken}`);
      expect(first.status).toBe(401); // used by the fixture's own login
    } finally {
      await fresh.close();
    }
  });

  it("sets the cookie with the right attributes and redirects to the workbench", async () => {
    const bed = makeTestBed();
    const { AuthGate } = await import("../../src/serve/auth.js");
    const { ServeHub } = await import("../../src/serve/hub.js");
    const { createServeApp } = await import("../../src/serve/app.js");
    const hub = new ServeHub({ workspace: bed.ws, log: () => {} });
    const gate = new AuthGate({ host: "127.0.0.1", port: PORT });
    const { app } = createServeApp({ hub, gate, webRoot: bed.dir });
    try {
      const res = await app.request(`${ORIGIN}/login?token=${gate.loginToken}`);
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/");
      const cookie = res.headers.get("set-cookie") ?? "";
      expect(cookie).toMatch(/^nbook_session=[A-Za-z0-9_-]{43};/);
      expect(cookie).toContain("HttpOnly");
      expect(cookie).toContain("SameSite=Strict");
      expect(cookie).toContain("Path=/");
      const me = await app.request(`${ORIGIN}/api/auth/me`, { headers: { cookie: cookie.split(";")[0] } });
      expect(me.status).toBe(200);
      expect(await me.json()).toEqual({ authenticated: true, passwordLogin: false });
    } finally {
      await hub.close();
      bed.cleanup();
    }
  });

  it("logout ends the session", async () => {
    fx = await serveFixture();
    expect((await fx.api("POST", "/api/auth/logout")).status).toBe(200);
    expect((await fx.api("GET", "/api/projects")).status).toBe(401);
  });

  it("a configured password logs in; a wrong one does not", async () => {
    fx = await serveFixture({ passwordHash: hashPassword("correct horse battery") });
    const post = (password: string) =>
      fx.app.request(`${ORIGIN}/api/auth/login`, {
        method: "POST",
        headers: { origin: ORIGIN, "content-type": "application/json" },
        body: JSON.stringify({ password }),
      });
    const wrong = await post("wrong password");
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    const right = await post("correct horse battery");
    expect(right.status).toBe(200);
    const cookie = (right.headers.get("set-cookie") ?? "").split(";")[0];
    const list = await fx.app.request(`${ORIGIN}/api/projects`, { headers: { cookie } });
    expect(list.status).toBe(200);
  });
});

describe("password guessing", () => {
  const gateAt = async (clock: { now: number }) => {
    const { AuthGate } = await import("../../src/serve/auth.js");
    return new AuthGate({
      host: "0.0.0.0",
      port: PORT,
      passwordHash: hashPassword("correct horse battery"),
      now: () => clock.now,
    });
  };

  it("pauses a client's password logins after ten wrong ones in a minute, the right one included, then lets it through", async () => {
    const clock = { now: 1_000_000 };
    const gate = await gateAt(clock);
    const attacker = clientKey("192.0.2.66");
    for (let i = 0; i < 10; i++) expect(gate.redeemPassword(`guess ${i}`, attacker)).toBeNull();
    expect(() => gate.redeemPassword("correct horse battery", attacker)).toThrow(/Too many wrong passwords/);
    clock.now += 60_001;
    expect(gate.redeemPassword("correct horse battery", attacker)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("another client's guesses never lock out the owner's client, even one guess every 6 s", async () => {
    const clock = { now: 1_000_000 };
    const gate = await gateAt(clock);
    const attacker = clientKey("192.0.2.66");
    const owner = clientKey("192.0.2.10");
    for (let i = 0; i < 10; i++) expect(gate.redeemPassword(`guess ${i}`, attacker)).toBeNull();
    let checked = 0;
    for (let minute = 0; minute < 3; minute++) {
      for (let i = 0; i < 10; i++) {
        clock.now += 6_000;
        try {
          expect(gate.redeemPassword(`guess ${minute}.${i}`, attacker)).toBeNull();
          checked++;
        } catch (e) {
          expect((e as Error).message).toMatch(/Too many wrong passwords/);
        }
        expect(gate.redeemPassword("correct horse battery", owner)).toMatch(/^[A-Za-z0-9_-]{43}$/);
      }
    }
    // The attacker's own pace: never more than ten checked guesses a minute.
    expect(checked).toBeLessThanOrEqual(30);
    // The owner's own wrong guesses count against the owner only.
    expect(gate.redeemPassword("typo", owner)).toBeNull();
    expect(gate.redeemPassword("correct horse battery", owner)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("counts a client by what it cannot cheaply change: this machine is one client, an IPv6 /64 is one", () => {
    const loopback = ["127.0.0.1", "127.0.0.2", "127.9.9.9", "::1", "::ffff:127.0.0.1"].map(clientKey);
    expect(new Set(loopback).size).toBe(1);
    expect(clientKey("::ffff:192.0.2.10")).toBe(clientKey("192.0.2.10"));
    expect(clientKey("192.0.2.10")).not.toBe(clientKey("192.0.2.11"));
    expect(clientKey("2001:db8:1:2:aaaa::1")).toBe(clientKey("2001:db8:1:2:ffff:1:2:3"));
    expect(clientKey("2001:db8:1:2::1")).not.toBe(clientKey("2001:db8:1:3::1"));
    expect(clientKey("2001:db8::1")).toBe(clientKey("2001:0db8:0000:0000:0000:0000:0000:0009"));
  });

  it("answers the paused attempts with 429, per remote address", async () => {
    fx = await serveFixture({ passwordHash: hashPassword("correct horse battery") });
    const post = (password: string, remoteAddress: string) =>
      fx.app.request(
        `${ORIGIN}/api/auth/login`,
        {
          method: "POST",
          headers: { origin: ORIGIN, "content-type": "application/json" },
          body: JSON.stringify({ password }),
        },
        { incoming: { socket: { remoteAddress } } },
      );
    for (let i = 0; i < 10; i++) expect((await post(`guess ${i}`, "192.0.2.66")).status).toBe(401);
    const paused = await post("correct horse battery", "192.0.2.66");
    expect(paused.status).toBe(429);
    expect(((await paused.json()) as { error: { code: string } }).error.code).toBe("limit_exceeded");
    expect((await post("correct horse battery", "192.0.2.10")).status).toBe(200);
  });
});

describe("Host and Origin", () => {
  it("a state-changing request without an Origin, or from another origin, is 403 and changes nothing", async () => {
    fx = await serveFixture();
    const body = { name: "evil" };
    for (const origin of [
      undefined,
      "http://evil.example",
      "http://127.0.0.1:7331",
      "null",
      `${ORIGIN}.evil.example`,
    ]) {
      const headers: Record<string, string> = { cookie: fx.cookie, "content-type": "application/json" };
      if (origin !== undefined) headers.origin = origin;
      const res = await fx.app.request(`${ORIGIN}/api/projects`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
      expect(res.status, String(origin)).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_allowed");
    }
    expect(fx.bed.ws.hasProject("evil")).toBe(false);
    const ok = await fx.api("POST", "/api/projects", body);
    expect(ok.status).toBe(201);
    expect(fx.bed.ws.hasProject("evil")).toBe(true);
  });

  it("a Host that is not this server (DNS rebinding) is 403 even with a valid cookie, on every method", async () => {
    fx = await serveFixture();
    for (const host of ["evil.example:7330", "127.0.0.1:80", "127.0.0.1", "localhost.evil.example:7330"]) {
      const res = await fx.app.request(`http://${host}/api/projects`, {
        headers: { cookie: fx.cookie, host },
      });
      expect(res.status, host).toBe(403);
    }
    for (const host of ["127.0.0.1:7330", "localhost:7330", "[::1]:7330"]) {
      const res = await fx.app.request(`${ORIGIN}/api/projects`, { headers: { cookie: fx.cookie, host } });
      expect(res.status, host).toBe(200);
    }
  });

  it("binding beyond loopback without a password is refused before anything listens, and says why", async () => {
    const bed = makeTestBed();
    try {
      await expect(startServer({ workspace: bed.ws, host: "0.0.0.0", port: 0 })).rejects.toMatchObject({
        code: "config_error",
        message: expect.stringContaining("nbook serve --hash-password"),
      });
    } finally {
      bed.cleanup();
    }
  });
});

describe("bodies and errors", () => {
  it("a body over the cap is 413 limit_exceeded; a write may be larger than other requests", async () => {
    fx = await serveFixture();
    const big = JSON.stringify({ message: "x".repeat(300 * 1024) });
    const res = await fx.api("POST", "/api/sessions/1/prompt", big);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("limit_exceeded");
    const chapter = await fx.api("PUT", "/api/projects/novel/files/write", {
      path: "manuscript/long.md",
      content: "word ".repeat(200 * 1024),
      baseVersion: null,
    });
    expect(chapter.status).toBe(200);
    const huge = await fx.api("PUT", "/api/projects/novel/files/write", {
      path: "manuscript/huge.md",
      content: "x".repeat(9 * 1024 * 1024),
      baseVersion: null,
    });
    expect(huge.status).toBe(413);
  });

  it("an unknown route is a JSON not_found; the OpenAPI document needs no login and lists every route", async () => {
    fx = await serveFixture();
    const res = await fx.api("GET", "/api/nothing");
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
    const doc = (await (await fx.app.request(`${ORIGIN}/api/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { parameters: { name: string }[]; requestBody?: unknown }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    for (const spec of fx.routes.specs) {
      const path = spec.path.replace(/:(\w+)/g, "{$1}");
      expect(doc.paths[path]?.[spec.method], `${spec.method} ${spec.path}`).toBeDefined();
    }
    const write = doc.paths["/api/projects/{project}/files/write"].put.requestBody as {
      content: {
        "application/json": { schema: { properties: Record<string, unknown>; required: string[] } };
      };
    };
    expect(Object.keys(write.content["application/json"].schema.properties).sort()).toEqual([
      "baseVersion",
      "content",
      "path",
    ]);
    const read = doc.paths["/api/projects/{project}/files/read"].get;
    expect(read.parameters.map((p) => p.name)).toEqual(["project", "path"]);
  });

  it("the workbench's static files need no login; index.html answers page paths but not API ones", async () => {
    fx = await serveFixture();
    const root = await fx.app.request(`${ORIGIN}/`);
    expect(root.status).toBe(200);
    expect(root.headers.get("content-type")).toContain("text/html");
    expect(await root.text()).toContain("NeuroBook");
    // Only this server's scripts, and never inside another site's frame.
    expect(root.headers.get("content-security-policy")).toContain("script-src 'self';");
    expect(root.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(root.headers.get("x-frame-options")).toBe("DENY");
    const page = await fx.app.request(`${ORIGIN}/projects/novel/files`);
    expect(await page.text()).toContain("<div id=app>");
    const asset = await fx.app.request(`${ORIGIN}/assets/app-abc123.js`);
    expect(asset.headers.get("content-type")).toContain("text/javascript");
    expect(asset.headers.get("cache-control")).toContain("immutable");
    // Whatever a path does to climb out, the answer is index.html or nothing: never another file.
    for (const p of [
      "/assets/%2e%2e/%2e%2e/package.json",
      "/assets/..%2f..%2fpackage.json",
      "/assets/.hidden",
    ]) {
      const res = await fx.app.request(`${ORIGIN}${p}`);
      const text = await res.text();
      expect(res.status === 404 || text.includes("<div id=app>"), p).toBe(true);
      expect(text, p).not.toContain('"name": "neurobook"');
    }
  });
});
