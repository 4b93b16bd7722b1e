import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestBed, runNbookInProcess, type TestBed } from "../helpers.js";

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed();
  const dir = join(bed.project.root, ".nbook", "agent", "skills", "renamed");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), "---\nname: other\ndescription: x\nwhen_to_use: y\n---\n");
});
afterEach(() => bed.cleanup());

describe("nbook skills", () => {
  it("lists every skill with status, layer and path; a broken one with its file and reason", async () => {
    const r = await runNbookInProcess(["skills", "list", "--json"], { cwd: bed.project.root });
    expect(r.status, r.stderr).toBe(0);
    const { skills } = JSON.parse(r.stdout) as { skills: Record<string, unknown>[] };
    expect(skills.find((s) => s.name === "renamed")).toMatchObject({
      status: "broken",
      layer: "project",
      file: "novel/.nbook/agent/skills/renamed/SKILL.md",
      reason: 'front matter name "other" differs from the folder name "renamed"',
    });
    expect(skills.find((s) => s.name === "keep-canon")).toMatchObject({ status: "ok", layer: "builtin" });

    const text = await runNbookInProcess(["skills", "list"], { cwd: bed.project.root });
    expect(text.stdout).toMatch(
      /renamed\s+broken\s+project\s+BROKEN novel\/\.nbook\/agent\/skills\/renamed\/SKILL\.md/,
    );
  });

  it("shows a skill's SKILL.md, and refuses a broken or unknown one", async () => {
    const ok = await runNbookInProcess(["skills", "show", "record-world-facts"], { cwd: bed.project.root });
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("agents read skill://record-world-facts/SKILL.md");
    expect(ok.stdout).toContain("world.slice.write");
    const broken = await runNbookInProcess(["skills", "show", "renamed"], { cwd: bed.project.root });
    expect(broken.status).not.toBe(0);
    expect(broken.stderr).toContain("error [config_error]: Skill renamed is broken");
    const missing = await runNbookInProcess(["skills", "show", "nope"], { cwd: bed.project.root });
    expect(missing.stderr).toContain("error [not_found]");
  });
});
