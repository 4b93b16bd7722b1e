import { mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listSkills, usableSkills } from "../../src/skills/index.js";
import { makeTestBed, type TestBed } from "../helpers.js";

const BUILTIN = ["keep-canon", "prose-style-check", "record-world-facts", "writing-chain"];

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed();
});
afterEach(() => bed.cleanup());

function skill(root: string, folder: string, text: string): string {
  const dir = join(root, ".nbook", "agent", "skills", folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), text);
  return dir;
}

function md(name: string, description: string, extra = ""): string {
  return `---\nname: ${name}\ndescription: ${description}\nwhen_to_use: When testing.\n${extra}---\n# ${name}\n`;
}

describe("the skills catalog", () => {
  it("ships the built-in skills, each valid", () => {
    const all = listSkills(bed.ws, bed.project);
    expect(all.map((s) => [s.name, s.layer, s.status, s.reason])).toEqual(
      BUILTIN.map((n) => [n, "builtin", "ok", undefined]),
    );
    for (const s of all) expect(s.locator).toBe(`skill://${s.name}/SKILL.md`);
  });

  it("lets a workspace skill override a built-in one, and a project skill both", () => {
    skill(bed.ws.root, "keep-canon", md("keep-canon", "Workspace canon rules.", 'version: "2"\n'));
    skill(bed.ws.root, "house-style", md("house-style", "Workspace house style."));
    let byName = new Map(listSkills(bed.ws, bed.project).map((s) => [s.name, s]));
    expect(byName.get("keep-canon")).toMatchObject({
      layer: "workspace",
      path: ".nbook/agent/skills/keep-canon",
      meta: { description: "Workspace canon rules.", version: "2" },
    });

    skill(bed.project.root, "house-style", md("house-style", "This novel's style."));
    byName = new Map(listSkills(bed.ws, bed.project).map((s) => [s.name, s]));
    expect(byName.get("house-style")).toMatchObject({
      layer: "project",
      path: "novel/.nbook/agent/skills/house-style",
      meta: { description: "This novel's style." },
    });
    expect(byName.get("writing-chain")?.layer).toBe("builtin");
    // Without a project, its layer is not there.
    expect(listSkills(bed.ws, null).find((s) => s.name === "house-style")?.layer).toBe("workspace");
  });

  it("reports each broken skill with its folder and reason, and the others still load", () => {
    skill(bed.ws.root, "no-when", "---\nname: no-when\ndescription: Missing when_to_use.\n---\nbody\n");
    skill(bed.ws.root, "bad-yaml", "---\nname: bad-yaml\ndescription: [unclosed\n---\n");
    skill(bed.ws.root, "no-front", "# Just a heading\n");
    skill(bed.ws.root, "renamed", md("other-name", "The folder and the name differ."));
    skill(bed.ws.root, "Großbuchstaben", md("Großbuchstaben", "Not kebab-case."));
    mkdirSync(join(bed.project.root, ".nbook", "agent", "skills", "empty-folder"), { recursive: true });
    skill(bed.project.root, "fine", md("fine", "A good one."));

    const byName = new Map(listSkills(bed.ws, bed.project).map((s) => [s.name, s]));
    const broken = (n: string) => {
      const s = byName.get(n);
      expect(s?.status, n).toBe("broken");
      return s?.reason ?? "";
    };
    expect(broken("no-when")).toContain("/when_to_use");
    // Lines counted in the file, front matter from line 2.
    expect(broken("bad-yaml")).toBe(
      "front matter is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 3, column 23: description: [unclosed",
    );
    expect(broken("no-front")).toContain("no YAML front matter");
    expect(broken("renamed")).toContain('"other-name" differs from the folder name "renamed"');
    expect(broken("Großbuchstaben")).toContain("/name: lowercase kebab-case");
    expect(broken("empty-folder")).toBe("no SKILL.md in the folder");
    expect(byName.get("empty-folder")?.path).toBe("novel/.nbook/agent/skills/empty-folder");

    expect(usableSkills(bed.ws, bed.project).map((s) => s.name)).toEqual([...BUILTIN, "fine"].sort());
  });

  it("does not follow a project skill linked out of the project", () => {
    const outside = join(bed.dir, "elsewhere");
    mkdirSync(outside);
    writeFileSync(join(outside, "SKILL.md"), md("linked", "From outside the project."));
    mkdirSync(join(bed.project.root, ".nbook", "agent", "skills"), { recursive: true });
    symlinkSync(outside, join(bed.project.root, ".nbook", "agent", "skills", "linked"));
    const s = listSkills(bed.ws, bed.project).find((x) => x.name === "linked");
    expect(s).toMatchObject({
      status: "broken",
      reason: "SKILL.md leads out of the project through a symbolic link",
    });
    expect(s?.meta).toBeUndefined();
  });

  it("does not fall back to the built-in skill a broken override replaced", () => {
    skill(bed.project.root, "writing-chain", "---\nname: writing-chain\n---\n");
    const s = listSkills(bed.ws, bed.project).find((x) => x.name === "writing-chain");
    expect(s).toMatchObject({ layer: "project", status: "broken" });
    expect(usableSkills(bed.ws, bed.project).map((x) => x.name)).not.toContain("writing-chain");
  });

  it("re-reads a SKILL.md when it changes, and drops a removed skill", () => {
    const dir = skill(bed.ws.root, "notes", md("notes", "First version."));
    expect(usableSkills(bed.ws, null).find((s) => s.name === "notes")?.meta.description).toBe(
      "First version.",
    );
    writeFileSync(join(dir, "SKILL.md"), md("notes", "Second version, longer."));
    const later = new Date(Date.now() + 5000);
    utimesSync(join(dir, "SKILL.md"), later, later);
    expect(usableSkills(bed.ws, null).find((s) => s.name === "notes")?.meta.description).toBe(
      "Second version, longer.",
    );
    rmSync(dir, { recursive: true });
    expect(listSkills(bed.ws, null).map((s) => s.name)).toEqual(BUILTIN);
  });
});
