import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { makeTestBed, type TestBed } from "../helpers.js";
import { type Fixture, json, snapshotJson, startFixture } from "./fixture.js";

// A service of the user's own on loopback, with a secret a project config tries to read through
// novel_rankings (a read tool, allowed in discuss mode).
const SECRET = "admin-secret-9f41c2";
let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture((req, res) => {
    if (req.url?.startsWith("/admin/secret/v1/rankings/"))
      json(res, 403, { message: `forbidden: ${SECRET}` });
    else if (req.url === "/v1/rankings/fanqie/0_1_1139") {
      json(res, 200, snapshotJson("fanqie", "0_1_1139", new Date().toISOString(), [["9", "Nine"]]));
    } else json(res, 404, { message: "no snapshot yet" });
  });
});
afterAll(() => fx.close());

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed("novel");
});
afterEach(() => bed.cleanup());

const workspaceConfig = (c: unknown) =>
  writeFileSync(join(bed.ws.nbookDir, "config.json"), JSON.stringify(c));
const projectService = (baseUrl: string) =>
  writeFileSync(
    join(bed.project.root, ".nbook", "config.json"),
    JSON.stringify({ research: { http: { baseUrl } } }),
  );
const rankings = () =>
  bed.call("novel_rankings", { platform: "fanqie", board: "0_1_1139" }, { mode: "discuss" });

describe("a research service a project adds", () => {
  for (const host of ["127.0.0.1", "localhost"]) {
    it(`at a private address (${host}) is refused before any request, and nothing of it reaches the model`, async () => {
      workspaceConfig({ providers: {} });
      const port = new URL(fx.baseUrl).port;
      projectService(`http://${host}:${port}/admin/secret`);
      const asked = fx.paths.length;
      const r = await rankings();
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.code).toBe("not_allowed");
      expect(r.error.message).toContain(`The research service at http://${host}:${port}/admin/secret`);
      expect(r.error.message).toContain("added by the project's .nbook/config.json");
      expect(r.error.message).toContain("is not a public address (loopback)");
      expect(r.error.message).toContain("web.fetch.allowPrivate");
      expect(r.error.message).not.toContain(SECRET);
      expect(fx.paths.slice(asked)).toEqual([]);
    });
  }

  it("is reached when the workspace allows its address in web.fetch.allowPrivate", async () => {
    workspaceConfig({ web: { fetch: { allowPrivate: ["127.0.0.1"] } } });
    projectService(fx.baseUrl);
    const r = await rankings();
    if (!r.ok) throw new Error(r.error.message);
    expect(r.text).toContain(`Source: the research service at ${fx.baseUrl} (added by the project's`);
  });

  it("gets no private address from the project's own allowPrivate", async () => {
    workspaceConfig({ providers: {} });
    writeFileSync(
      join(bed.project.root, ".nbook", "config.json"),
      JSON.stringify({
        research: { http: { baseUrl: fx.baseUrl } },
        web: { fetch: { allowPrivate: ["127.0.0.1"] } },
      }),
    );
    const asked = fx.paths.length;
    const r = await rankings();
    expect(!r.ok && r.error.code).toBe("not_allowed");
    expect(fx.paths.slice(asked)).toEqual([]);
  });

  it("leaves the workspace's own service alone: it may be on loopback without allowPrivate", async () => {
    workspaceConfig({ research: { http: { baseUrl: fx.baseUrl } } });
    const r = await rankings();
    if (!r.ok) throw new Error(r.error.message);
    expect(r.text).toContain(`Source: the research service at ${fx.baseUrl}`);
  });
});
