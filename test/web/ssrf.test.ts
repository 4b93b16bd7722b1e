import net from "node:net";
import tls from "node:tls";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { ErrorInfo } from "../../src/core/errors.js";
import { FETCH_DEFAULTS, type FetchSettings } from "../../src/web/config.js";
import { guardedAgent } from "../../src/web/fetch/client.js";
import { AllowList, type Resolver, refusalReason } from "../../src/web/fetch/guard.js";
import { fetchPage } from "../../src/web/fetch/index.js";
import { type FixtureServer, respond, startFixtureServer } from "./fixture-server.js";

// Every refused address below must be refused before a socket is opened: net.connect and
// tls.connect are watched (and throw for anything but loopback, so no test can send traffic
// elsewhere even with a broken guard); a refused literal never reaches them.

let server: FixtureServer;
const settings = (allowPrivate: string[] = []): FetchSettings => ({
  ...FETCH_DEFAULTS,
  timeoutMs: 5_000,
  allowPrivate,
});

/** A resolver for test names: each maps to fixed addresses (or a function of the call count). */
function resolver(
  table: Record<string, string[] | ((call: number) => string[])>,
): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string) => {
    calls.push(hostname);
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    const list = typeof entry === "function" ? entry(calls.filter((c) => c === hostname).length) : entry;
    return list.map((address) => ({ address, family: net.isIP(address) }));
  };
  return Object.assign(fn, { calls });
}

async function refusal(url: string, opts: { allow?: string[]; resolve?: Resolver } = {}): Promise<ErrorInfo> {
  try {
    await fetchPage(url, settings(opts.allow), opts.resolve ? { resolve: opts.resolve } : {});
  } catch (e) {
    return (e as { toInfo(): ErrorInfo }).toInfo();
  }
  throw new Error(`${url} was fetched`);
}

let connects: ReturnType<typeof vi.spyOn>[];
const socketsOpened = () => connects.reduce((n, s) => n + s.mock.calls.length, 0);

/** Hosts a socket may be opened to: the fixture's loopback address and the test names (which resolve to loopback). */
const SAFE_HOST = /^(127\.0\.0\.[12]|localhost|[a-z]+\.test)$/;

/**
 * Watch net.connect and tls.connect. A socket to anything but loopback throws instead of
 * connecting, so even a broken guard can never send a packet to a private or public address.
 */
function watchSockets() {
  const realNet = net.connect.bind(net);
  const realTls = tls.connect.bind(tls);
  const safe = (args: unknown[]) => {
    const host = (args[0] as { host?: string } | undefined)?.host;
    if (!host || !SAFE_HOST.test(host)) throw new Error(`test safety: a socket to ${host} was about to open`);
  };
  connects = [
    vi.spyOn(net, "connect").mockImplementation(((...args: unknown[]) => {
      safe(args);
      return (realNet as (...a: unknown[]) => net.Socket)(...args);
    }) as typeof net.connect),
    vi.spyOn(tls, "connect").mockImplementation(((...args: unknown[]) => {
      safe(args);
      return (realTls as (...a: unknown[]) => tls.TLSSocket)(...args);
    }) as typeof tls.connect),
  ];
}

beforeAll(async () => {
  server = await startFixtureServer({
    "/page": respond(200, { "content-type": "text/plain" }, "fixture page"),
    "/close": (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", connection: "close" });
      res.end("fresh connection each time");
    },
  });
});
afterAll(() => server.close());
beforeEach(watchSockets);
afterEach(() => vi.restoreAllMocks());

describe("refusalReason classifies addresses", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["::1", "loopback"],
    ["10.1.2.3", "private-network"],
    ["172.16.0.1", "private-network"],
    ["192.168.1.1", "private-network"],
    ["fd12::1", "private-network (unique local)"],
    ["169.254.169.254", "cloud metadata"],
    ["fd00:ec2::254", "cloud metadata"],
    ["100.100.100.200", "cloud metadata"],
    ["169.254.1.1", "link-local"],
    ["fe80::1", "link-local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["::ffff:127.0.0.1", "IPv4-mapped IPv6"],
    ["::ffff:8.8.8.8", "IPv4-mapped IPv6"],
    ["64:ff9b::7f00:1", "loopback"],
    ["255.255.255.255", "broadcast"],
  ])("%s is refused as %s", (address, reason) => {
    expect(refusalReason(address)).toBe(reason);
  });

  it.each(["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "64:ff9b::808:808"])("%s is public", (address) => {
    expect(refusalReason(address)).toBeNull();
  });

  it("an allowlist admits its hosts and ranges, an IPv4-mapped address by its IPv4 form", () => {
    const allow = new AllowList(["nas.home", "10.0.0.0/8", "::1"]);
    expect(allow.allowsHost("NAS.home.")).toBe(true);
    expect(allow.allowsHost("other.home")).toBe(false);
    expect(allow.allowsAddress("10.9.8.7")).toBe(true);
    expect(allow.allowsAddress("::ffff:10.9.8.7")).toBe(true);
    expect(allow.allowsAddress("11.0.0.1")).toBe(false);
    expect(allow.allowsAddress("::1")).toBe(true);
    expect(allow.allowsAddress("::2")).toBe(false);
  });
});

describe("web_fetch without an allowlist refuses private addresses at connection time", () => {
  // Loopback forms pointing at the live fixture: the fixture must see no connection at all.
  it.each([
    ["127.0.0.1", (p: number) => `http://127.0.0.1:${p}/page`],
    ["[::1]", (p: number) => `http://[::1]:${p}/page`],
    ["0x7f000001", (p: number) => `http://0x7f000001:${p}/page`],
    ["2130706433 (decimal)", (p: number) => `http://2130706433:${p}/page`],
    ["0177.0.0.1 (octal)", (p: number) => `http://0177.0.0.1:${p}/page`],
    ["127.1 (short)", (p: number) => `http://127.1:${p}/page`],
    ["[::ffff:127.0.0.1]", (p: number) => `http://[::ffff:127.0.0.1]:${p}/page`],
    ["0.0.0.0", (p: number) => `http://0.0.0.0:${p}/page`],
  ])("%s: refused in the guard, no socket opened", async (_name, make) => {
    const before = server.connections();
    const err = await refusal(make(server.port));
    expect(err.code).toBe("not_allowed");
    expect(err.message).toContain("web.fetch.allowPrivate");
    expect(socketsOpened()).toBe(0);
    expect(server.connections()).toBe(before);
  });

  // Addresses no test may ever send to: the guard refuses them before net.connect is called.
  it.each([
    ["http://169.254.169.254/latest/meta-data/", "cloud metadata"],
    ["http://[fd00:ec2::254]/latest/meta-data/", "cloud metadata"],
    ["http://10.0.0.1/", "private-network"],
    ["http://172.16.5.4/", "private-network"],
    ["http://192.168.1.1/admin", "private-network"],
    ["http://100.64.0.1/", "carrier-grade NAT"],
    ["http://[fe80::1]/", "link-local"],
    ["http://224.0.0.1/", "multicast"],
    ["https://10.0.0.1/", "private-network"],
  ])("%s: refused as %s before any socket", async (url, reason) => {
    const err = await refusal(url);
    expect(err.code).toBe("not_allowed");
    expect((err.details as { reason: string }).reason).toBe(reason);
    expect(socketsOpened()).toBe(0);
  });

  it("localhost (system resolver) is refused in the lookup; the fixture sees no connection", async () => {
    const before = server.connections();
    const err = await refusal(`http://localhost:${server.port}/page`);
    expect(err.code).toBe("not_allowed");
    expect((err.details as { reason: string }).reason).toBe("loopback");
    expect(server.connections()).toBe(before);
  });

  it("a DNS name resolving to 127.0.0.1 (custom resolver) is refused; the fixture sees no connection", async () => {
    const resolve = resolver({ "rebind.test": ["127.0.0.1"] });
    const before = server.connections();
    const err = await refusal(`http://rebind.test:${server.port}/page`, { resolve });
    expect(err.code).toBe("not_allowed");
    expect(err.message).toContain("rebind.test resolves to 127.0.0.1");
    expect(resolve.calls).toEqual(["rebind.test"]);
    expect(server.connections()).toBe(before);
  });

  it("a name with one allowed and one refused address is refused whole", async () => {
    const resolve = resolver({ "mixed.test": ["127.0.0.1", "127.0.0.2"] });
    const before = server.connections();
    const err = await refusal(`http://mixed.test:${server.port}/page`, { allow: ["127.0.0.1"], resolve });
    expect(err.code).toBe("not_allowed");
    expect(err.message).toContain("127.0.0.2");
    expect(server.connections()).toBe(before);
  });

  it("file: and other schemes are refused with the http/https message", async () => {
    const err = await refusal("file:///etc/passwd");
    expect(err.code).toBe("invalid_input");
    expect(err.message).toContain("only http and https");
  });
});

describe("with the allowlist", () => {
  it("127.0.0.1, a CIDR range and an allowed host name reach the fixture", async () => {
    for (const allow of [["127.0.0.1"], ["127.0.0.0/8"]]) {
      const { page } = await fetchPage(server.url("/page"), settings(allow));
      expect(page.content).toBe("fixture page");
    }
    const resolve = resolver({ "fixture.test": ["127.0.0.1"] });
    const { page } = await fetchPage(`http://fixture.test:${server.port}/page`, settings(["fixture.test"]), {
      resolve,
    });
    expect(page.content).toBe("fixture page");
    expect(resolve.calls).toEqual(["fixture.test"]);
  });

  it("a redirect from the allowed fixture to a refused address is refused", async () => {
    const targets = [
      "http://169.254.169.254/latest/meta-data/",
      `http://127.0.0.2:${server.port}/page`,
      `http://[::1]:${server.port}/page`,
      `http://evil.test:${server.port}/page`,
      "http://10.0.0.1/",
    ];
    const resolve = resolver({ "evil.test": ["127.0.0.2"] });
    for (const [i, target] of targets.entries()) {
      server.route(`/hop${i}`, respond(302, { location: target }));
      for (const spy of connects) spy.mockClear();
      const err = await refusal(server.url(`/hop${i}`), { allow: ["127.0.0.1"], resolve });
      expect(err.code, target).toBe("not_allowed");
      // The only socket opened went to the allowed fixture.
      expect(socketsOpened()).toBeGreaterThan(0);
      for (const spy of connects) {
        for (const [opts] of spy.mock.calls) {
          expect((opts as { host?: string }).host, target).toMatch(/^(127\.0\.0\.1|evil\.test)$/);
        }
      }
    }
  });

  it("a redirect to a non-http scheme is refused on the hop", async () => {
    server.route("/to-file", respond(301, { location: "file:///etc/passwd" }));
    const err = await refusal(server.url("/to-file"), { allow: ["127.0.0.1"] });
    expect(err.code).toBe("invalid_input");
    expect(err.message).toContain("only http and https");
  });

  it("DNS rebinding: each new connection is checked, so a name that turns private is refused", async () => {
    const resolve = resolver({ "flip.test": (call) => (call === 1 ? ["127.0.0.1"] : ["127.0.0.2"]) });
    // One guarded agent for both requests, as web_fetch keeps one per allowlist.
    const dispatcher = guardedAgent(["127.0.0.1"], resolve);
    const s = settings(["127.0.0.1"]);
    const first = await fetchPage(`http://flip.test:${server.port}/close`, s, { dispatcher });
    expect(first.page.content).toBe("fresh connection each time");
    // Same host again: the server closed the connection, so a new one is resolved and checked.
    const err = await fetchPage(`http://flip.test:${server.port}/close?again`, s, { dispatcher }).then(
      () => null,
      (e) => e.toInfo(),
    );
    expect(err?.code).toBe("not_allowed");
    expect(err?.message).toContain("127.0.0.2");
    expect(resolve.calls).toEqual(["flip.test", "flip.test"]);
  });
});
