import { describe, expect, it } from "vitest";
import { plotFixture } from "../../../test/plot/tool-fixture.js";
import { PLOT_READ_TOOLS, PLOT_WRITE_TOOLS } from "../../profiles/builtin/prompt.js";
import { ProfileCatalog } from "../../profiles/catalog.js";
import { createToolRegistry } from "../builtin.js";
import type { AnyTool } from "../types.js";
import { plotTools } from "./index.js";

describe("plot tool registration", () => {
  it("has exactly the 15 tools: 8 reads and 7 writes, each with the declared effect", async () => {
    expect(plotTools.map((t) => t.key).sort()).toEqual([...PLOT_READ_TOOLS, ...PLOT_WRITE_TOOLS].sort());
    for (const t of plotTools) {
      expect(t.effect, t.key).toBe(
        (PLOT_WRITE_TOOLS as readonly string[]).includes(t.key) ? "write" : "read",
      );
      if (t.effect === "write")
        expect((await (t as AnyTool).prepare({}, {} as never)).preview, t.key).toBeTypeOf("function");
    }
    const registry = createToolRegistry();
    for (const k of [...PLOT_READ_TOOLS, ...PLOT_WRITE_TOOLS]) expect(registry.has(k)).toBe(true);
  });

  it("gives leader.default and director reads and writes, and the writer reads only", () => {
    const f = plotFixture();
    try {
      const catalog = new ProfileCatalog(createToolRegistry(), f.workspace, f.project);
      for (const key of ["leader.default", "director"]) {
        const allow = catalog.allowlist(key);
        for (const k of [...PLOT_READ_TOOLS, ...PLOT_WRITE_TOOLS])
          expect(allow.has(k), `${key} ${k}`).toBe(true);
      }
      const writer = catalog.allowlist("writer");
      for (const k of PLOT_READ_TOOLS) expect(writer.has(k)).toBe(true);
      for (const k of PLOT_WRITE_TOOLS) expect(writer.has(k)).toBe(false);
    } finally {
      f.cleanup();
    }
  });

  it("stops a writer profile from calling a plot write tool", async () => {
    const f = plotFixture();
    try {
      const catalog = new ProfileCatalog(createToolRegistry(), f.workspace, f.project);
      const r = await f.call(
        "save_story_thread",
        { action: "create", name: "x", title: "X" },
        { profileKey: "writer", allow: catalog.allowlist("writer") },
      );
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe("not_allowed");
    } finally {
      f.cleanup();
    }
  });
});
