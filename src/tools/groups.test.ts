import { describe, expect, it } from "vitest";
import { BUILTIN_TOOLS } from "./builtin.js";
import { groupOfKey, loadToolRegistry, TOOL_GROUPS } from "./groups.js";

describe("the tool group table", () => {
  it("lists, for each group, exactly the tools its module exports, in BUILTIN_TOOLS order", async () => {
    for (const entry of TOOL_GROUPS) {
      const tools = await entry.load();
      expect(
        tools.map((t) => t.key),
        entry.group,
      ).toEqual(entry.keys);
      expect(new Set(tools.map((t) => t.group)), entry.group).toEqual(new Set([entry.group]));
    }
    expect(TOOL_GROUPS.flatMap((g) => g.keys)).toEqual(BUILTIN_TOOLS.map((t) => t.key));
  });

  it("loads the same tool objects createToolRegistry holds", async () => {
    const files = TOOL_GROUPS.find((g) => g.group === "files");
    const loaded = await files?.load();
    expect(loaded?.[0]).toBe(BUILTIN_TOOLS.find((t) => t.key === "read"));
  });

  it("finds the group of a key, and none for an unknown key", () => {
    expect(groupOfKey("execute_world")?.group).toBe("world");
    expect(groupOfKey("save_story_act")?.group).toBe("plot");
    expect(groupOfKey("nope")).toBeUndefined();
  });
});

describe("a registry narrowed to some keys", () => {
  it("holds their groups' tools, knows every other key, and refuses to hand out an unloaded one", async () => {
    const registry = await loadToolRegistry(["read"]);
    expect(registry.keys()).toEqual(["read", "write", "edit", "apply_patch", "bash", "search"]);
    expect(registry.get("read")?.key).toBe("read");
    for (const t of BUILTIN_TOOLS) expect(registry.has(t.key), t.key).toBe(true);
    expect(registry.has("nope")).toBe(false);
    expect(registry.get("nope")).toBeUndefined();
    expect(() => registry.get("execute_world")).toThrow(
      /execute_world is known but its group was not loaded/,
    );
  });

  it("loads every group a list of keys names", async () => {
    const registry = await loadToolRegistry(["execute_sql", "get_story_tree", "unknown"]);
    expect(new Set(registry.list().map((t) => t.group))).toEqual(new Set(["sql", "plot"]));
  });
});
