import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { measureOverhead, OVERHEAD_BEFORE } from "../../bench/prompt-overhead.js";
import { buildSystem, readPath } from "../../src/harness/context.js";
import { modeGates, offeredTools, stepTools } from "../../src/harness/tool-specs.js";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed();
});
afterEach(() => bed.cleanup());

const registry = createToolRegistry();
const load = () => new ProfileCatalog(registry, bed.ws, bed.project);

function prompt(key: string, c = load()): string {
  return c.get(key).systemPrompt({
    projectName: "novel",
    projectTitle: "Novel",
    language: "en",
    mode: "normal",
    initial: { systemPrompt: "You tidy notes.", subjectPath: "simulation/subjects/mara", kind: "npc" },
    toolKeys: [...c.allowlist(key).keys()],
  });
}

describe("the fixed cost of a turn", () => {
  it("is at most half of what it was for every built-in profile", () => {
    const now = measureOverhead();
    expect(now.map((o) => o.profile).sort()).toEqual(Object.keys(OVERHEAD_BEFORE).sort());
    for (const o of now) {
      const before = OVERHEAD_BEFORE[o.profile]!;
      expect(o.systemTokens + o.toolTokens, o.profile).toBeLessThanOrEqual(
        (before.systemTokens + before.toolTokens) / 2,
      );
    }
  });

  it("sends a new project's AGENTS.md template not at all, and the author's own lines as written", () => {
    const template = readFileSync(join(bed.project.root, "AGENTS.md"), "utf8");
    expect(template).toContain("<!--");
    expect(prompt("writer")).not.toContain("## Project instructions");
    writeFileSync(
      join(bed.project.root, "AGENTS.md"),
      `${template}\nNever name the bell-ringer.\n<!-- a note to myself: decide act two -->\n`,
    );
    const p = prompt("writer");
    expect(p).toMatch(
      /## Project instructions \(AGENTS\.md, from the author: follow them\)\n# [^\n]+\n\nNever name the bell-ringer\.$/,
    );
    expect(p).not.toContain("note to myself");
    expect(p).not.toContain("<!--");
  });

  it("states the layout once, in the shared opening", () => {
    const p = prompt("leader.default");
    expect(p.match(/manuscript\/<chapter>\/index\.md/g)).toHaveLength(1);
    expect(p).toContain("world-engine/ world schema and calendar");
  });

  it("tells the mode only to a profile the mode can stop", () => {
    const c = load();
    const gated = (key: string) => modeGates(registry, c.allowlist(key));
    expect(gated("leader.default")).toBe(true);
    expect(gated("writer")).toBe(true);
    expect(gated("simulator.actor")).toBe(true);
    // Read-only bash, read, search and report_result: no mode can stop any of them.
    expect(gated("retrieval")).toBe(false);
    expect(gated("summarizer")).toBe(false);
    expect(buildSystem("P", null, readPath([]))).toBe("P");
    expect(buildSystem("P", "plan", readPath([]))).toContain("## Mode\nThe session is now in PLAN mode");
  });

  it("lists the skills by name to a narrow profile and with their descriptions to the leader", () => {
    const c = load();
    const narrow = prompt("retrieval", c);
    expect(narrow).toContain(
      "## Skills\nWhen a task matches one, read skill://<name>/SKILL.md first: keep-canon, prose-style-check, record-world-facts, writing-chain.",
    );
    const full = prompt("leader.default", c);
    expect(full).toMatch(/\n- keep-canon: Keep the lorebook/);
  });

  it("keeps the world engine's file tools allowlisted and sends them once load_tools names their set", () => {
    const c = load();
    const profile = c.get("world.engine");
    expect([...c.allowlist("world.engine").keys()]).toEqual(
      expect.arrayContaining(["write", "edit", "apply_patch", "execute_world"]),
    );
    const offered = offeredTools(registry, profile);
    const names = (loaded: string[]) => stepTools(offered, new Set(loaded)).tools.map((t) => t.name);
    expect(names([])).not.toContain("edit");
    expect(names([])).toContain("load_tools");
    expect(names(["files"])).toEqual(expect.arrayContaining(["write", "edit", "apply_patch"]));
  });

  it("asks an output with no fields for `result` only", () => {
    const c = load();
    const report = (key: string) =>
      offeredTools(registry, c.get(key)).tools.find((t) => t.name === "report_result")!.inputSchema as {
        properties: Record<string, unknown>;
      };
    expect(Object.keys(report("inline.editor").properties)).toEqual(["result"]);
    expect(Object.keys(report("retrieval").properties)).toEqual(["result", "data"]);
  });
});
