import { afterEach, describe, expect, it } from "vitest";
import { measureOverhead, OVERHEAD_BEFORE } from "../../bench/prompt-overhead.js";
import { BUILTIN_PROFILES } from "../../src/profiles/builtin/index.js";
import { resolveAllowlist } from "../../src/profiles/define.js";
import { LOAD_TOOLS, OnDemandBindingSchema } from "../../src/tools/on-demand.js";
import { type HarnessFixture, harnessFixture } from "../harness-fixture.js";

let fx: HarnessFixture;
afterEach(() => fx?.close());

function offered(call: number): string[] {
  return (fx.model.calls[call]?.tools ?? []).map((t) => t.name);
}

describe("tools sent on demand", () => {
  it("sends a set's definitions from the step after load_tools names it, and refuses an unknown set by pointer", async () => {
    fx = harnessFixture([
      {
        expect: { tools: [LOAD_TOOLS, "read"], notTools: ["save_story_scene", "list_jobs"] },
        toolCalls: [{ name: LOAD_TOOLS, input: { sets: ["plot_write"] } }],
      },
      {
        expect: {
          tools: ["save_story_scene"],
          notTools: ["list_jobs"],
          lastToolResult: "Loaded: plot_write",
        },
        toolCalls: [{ name: LOAD_TOOLS, input: { sets: ["jobs", "nope"] } }],
      },
      { expect: { lastToolResult: '/sets/1: no set "nope"', notTools: ["list_jobs"] }, text: "Done." },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "Plan chapter two." });
    expect(r.status, r.error?.message).toBe("completed");
    expect(offered(0)).not.toContain("save_story_scene");
    // The loaded set comes after the always-sent tools, so the earlier definitions stay a stable prefix.
    expect(offered(1).slice(0, offered(0).length)).toEqual(offered(0));
    expect(offered(1)).toContain("save_story_chapter");
    const failed = fx.store.activePath(s.id).find((e) => e.kind === "tool_result" && !e.data.ok);
    expect(failed?.kind === "tool_result" && failed.data.error?.fields).toEqual([
      { pointer: "/sets/1", message: 'no set "nope"' },
    ]);
  });

  it("lets a profile call a tool of a set it has not loaded (the allowlist is unchanged)", async () => {
    fx = harnessFixture([
      { expect: { notTools: ["list_jobs"] }, toolCalls: [{ name: "list_jobs", input: {} }] },
      { expect: { lastToolResult: "job" }, text: "No jobs." },
    ]);
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "Any jobs?" });
    expect(r.status, r.error?.message).toBe("completed");
  });

  it("built-in sets are valid, disjoint and name only tools on the profile's allowlist", () => {
    for (const p of BUILTIN_PROFILES) {
      const allow = resolveAllowlist(p);
      const binding = allow.get(LOAD_TOOLS);
      if (!binding) continue;
      const sets = OnDemandBindingSchema.parse(binding).sets;
      for (const keys of Object.values(sets))
        for (const k of keys) expect(allow.has(k), `${p.key}: ${k}`).toBe(true);
    }
  });

  it("halves the per-turn overhead of the leader, the director and the writer (o200k)", () => {
    const now = new Map(measureOverhead().map((o) => [o.profile, o]));
    for (const key of ["leader.default", "director", "writer"]) {
      const before = OVERHEAD_BEFORE[key]!;
      const after = now.get(key)!;
      expect(after.systemTokens + after.toolTokens, key).toBeLessThanOrEqual(
        (before.systemTokens + before.toolTokens) / 2,
      );
    }
  });
});
