import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { describeProfile } from "../../src/profiles/describe.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed("novel");
});
afterEach(() => bed.cleanup());

const userDir = () => join(bed.ws.nbookDir, "agent", "profiles");
const projectDir = () => join(bed.project.root, ".nbook", "agent", "profiles");
const load = () => new ProfileCatalog(createToolRegistry(), bed.ws, bed.project);

describe("profile catalog", () => {
  it("has the built-in profiles, summarizer system_only", () => {
    const keys = bed.catalog.list().map((p) => p.key);
    for (const k of [
      "leader.default",
      "writer",
      "retrieval",
      "researcher",
      "world.engine",
      "inline.editor",
      "director",
      "memory.curator",
      "summarizer",
      "simulator.actor",
      "adhoc",
    ]) {
      expect(keys).toContain(k);
    }
    expect(bed.catalog.get("summarizer").creation).toBe("system_only");
    expect(bed.catalog.get("writer").creation).toBe("public");
  });

  it("gives each built-in the allowlist of the profile table: the writer's world access read-only, no plot writes", () => {
    const keys = (k: string) => [...bed.catalog.allowlist(k).keys()];
    expect(bed.catalog.allowlist("writer").get("execute_world")).toEqual({ access: "readonly" });
    expect(bed.catalog.allowlist("leader.default").get("execute_world")).toEqual({ access: "readwrite" });
    expect(bed.catalog.allowlist("world.engine").get("execute_world")).toEqual({ access: "readwrite" });
    expect(keys("writer").filter((k) => k.startsWith("save_"))).toEqual([]);
    expect(keys("writer")).toEqual(
      expect.arrayContaining(["read", "write", "edit", "bash", "report_result"]),
    );
    expect(keys("leader.default")).not.toContain("report_result");
    expect(keys("retrieval").sort()).toEqual(["bash", "read", "report_result"]);
    expect(keys("inline.editor").sort()).toEqual(["edit", "read", "report_result", "write"]);
    expect(keys("director")).not.toContain("execute_world");
    expect(keys("director")).not.toContain("write");
    for (const k of ["memory.curator", "summarizer", "simulator.actor"])
      expect(keys(k)).toEqual(["report_result"]);
    expect(keys("adhoc").sort()).toEqual(["read", "report_result"]);
  });

  it("layers built-in < user < project by key", () => {
    mkdirSync(projectDir(), { recursive: true });
    writeFileSync(
      join(userDir(), "scout.yaml"),
      "key: scout\nname: Scout (user)\ndescription: reads\ntools: [read]\nprompt: You scout.\n",
    );
    writeFileSync(
      join(projectDir(), "scout.json"),
      JSON.stringify({
        key: "scout",
        name: "Scout (project)",
        tools: ["read", "bash"],
        prompt: "You scout here.",
      }),
    );
    writeFileSync(
      join(userDir(), "writer.yaml"),
      "key: writer\nname: My writer\ntools: [read, write]\nprompt: Write tersely.\n",
    );
    const c = load();
    expect(c.problems).toEqual([]);
    expect(c.get("scout").name).toBe("Scout (project)");
    expect(c.get("scout").source).toBe("project");
    expect([...c.allowlist("scout").keys()]).toEqual(["read", "bash"]);
    expect(c.get("scout").initial.safeParse({}).success).toBe(true);
    expect(c.get("scout").initial.safeParse({ extra: 1 }).success).toBe(false);
    const w = c.get("writer");
    expect(w.source).toBe("user");
    expect([...c.allowlist("writer").keys()]).toEqual(["read", "write"]);
    // Overriding a built-in keeps its schemas.
    expect(w.payload).toBe(bed.catalog.get("writer").payload);
  });

  it("reports an unknown tool or a malformed file with the file, and does not load the profile", () => {
    writeFileSync(
      join(userDir(), "bad-tool.yaml"),
      "key: badtool\nname: Bad\ntools: [read, teleport]\nprompt: x\n",
    );
    writeFileSync(join(userDir(), "broken.yaml"), "key: broken\nname: [unclosed\n");
    writeFileSync(join(userDir(), "missing.json"), JSON.stringify({ key: "missing", tools: [] }));
    const c = load();
    expect(c.has("badtool")).toBe(false);
    expect(c.has("broken")).toBe(false);
    expect(c.has("missing")).toBe(false);
    const byFile = Object.fromEntries(c.problems.map((p) => [p.file, p.message]));
    expect(byFile[".nbook/agent/profiles/bad-tool.yaml"]).toContain("unknown tool teleport");
    expect(byFile[".nbook/agent/profiles/broken.yaml"]).toBeTruthy();
    expect(byFile[".nbook/agent/profiles/missing.json"]).toContain("/name");
  });

  it("describes a profile with JSON Schemas and tool keys", () => {
    const d = describeProfile(bed.catalog.get("retrieval"));
    expect(d.creationMode).toBe("public");
    expect(d.toolKeys).toContain("read");
    expect(d.InitialSchema).toMatchObject({ type: "object", required: ["prompt"] });
    expect(d.OutputSchema).toMatchObject({ type: "object" });
  });
});

describe("project metadata", () => {
  it("picks up edits to project.yaml", () => {
    expect(bed.project.meta().title).toBe("novel");
    writeFileSync(join(bed.project.root, "project.yaml"), "title: Renamed Novel\nlanguage: zh\n");
    expect(bed.project.meta()).toMatchObject({ title: "Renamed Novel", language: "zh" });
  });
});
