import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
beforeAll(() => {
  bed = makeTestBed();
});
afterAll(() => bed.cleanup());

const prompt = (initial: Record<string, unknown>) =>
  bed.catalog.get("researcher").systemPrompt({
    projectName: "novel",
    projectTitle: null,
    language: "en",
    mode: "normal",
    initial,
    toolKeys: [],
  });

describe("the researcher and the web tools", () => {
  it("the researcher may search and fetch; the leader and the writer may not", () => {
    const researcher = bed.catalog.allowlist("researcher");
    expect(researcher.has("web_search") && researcher.has("web_fetch")).toBe(true);
    for (const other of ["leader.default", "writer"]) {
      const allowed = bed.catalog.allowlist(other);
      expect(allowed.has("web_search") || allowed.has("web_fetch"), other).toBe(false);
    }
  });

  it("another profile's web call is refused by the allowlist", async () => {
    const r = await bed.call("web_fetch", { url: "https://example.com/" }, { profile: "writer" });
    expect(r.ok ? "ran" : r.error.code).toBe("not_allowed");
  });

  it("the researcher's initial domains and recency are passed on to every search", () => {
    expect(
      prompt({
        allowed_domains: ["qidian.com", "jjwxc.net"],
        blocked_domains: ["spam.example"],
        default_recency_days: 30,
      }),
    ).toContain(
      "Pass these to every web_search unless the user asks otherwise: allowed_domains [qidian.com, jjwxc.net]; blocked_domains [spam.example]; recency_days 30.",
    );
    expect(prompt({})).not.toContain("Pass these to every web_search");
  });
});
