import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
let wsSkill: string;
let projectSkill: string;
beforeEach(() => {
  bed = makeTestBed();
  wsSkill = join(bed.ws.nbookDir, "agent", "skills", "house-style");
  mkdirSync(join(wsSkill, "references"), { recursive: true });
  writeFileSync(
    join(wsSkill, "SKILL.md"),
    "---\nname: house-style\ndescription: House style.\nwhen_to_use: Always.\n---\nSee references/words.md.\n",
  );
  writeFileSync(join(wsSkill, "references", "words.md"), "Never write 'suddenly'.\n");
  projectSkill = join(bed.project.root, ".nbook", "agent", "skills", "bells");
  mkdirSync(projectSkill, { recursive: true });
  writeFileSync(
    join(projectSkill, "SKILL.md"),
    "---\nname: bells\ndescription: The bells.\nwhen_to_use: Bell scenes.\n---\nBells ring at low tide.\n",
  );
  // A secret outside every skill folder and outside the project.
  writeFileSync(join(bed.dir, "secret.txt"), "TOP SECRET\n");
});
afterEach(() => bed.cleanup());

async function read(path: string) {
  return bed.call("read", { path }, { profile: "writer" });
}

async function refused(path: string): Promise<string> {
  const r = await read(path);
  expect(r.ok, path).toBe(false);
  if (r.ok) return "";
  expect(JSON.stringify(r.error)).not.toContain("TOP SECRET");
  expect(r.error.message).not.toContain(bed.dir);
  return r.error.code;
}

describe("read through skill://", () => {
  it("reads a built-in skill, a workspace skill's files and a project skill", async () => {
    const builtin = await read("skill://writing-chain/SKILL.md");
    expect(builtin.ok && builtin.text).toContain("outline → sign-off → world → plot → draft → backfill");
    const ref = await read("skill://house-style/references/words.md");
    expect(ref.ok && ref.text).toContain("Never write 'suddenly'.");
    const folder = await read("skill://house-style");
    expect(folder.ok && folder.text).toContain("references/");
    const project = await read("skill://bells/SKILL.md");
    expect(project.ok && project.text).toContain("Bells ring at low tide.");
    // The project's own copy is also a plain project path: .nbook/ is readable, only never written.
    const plain = await read(".nbook/agent/skills/bells/SKILL.md");
    expect(plain.ok && plain.text).toContain("Bells ring at low tide.");
  });

  it("refuses .. escapes, absolute paths and unknown skills", async () => {
    expect(await refused("skill://house-style/../../../secret.txt")).toBe("path_escape");
    expect(await refused("skill://keep-canon/../../../../../../etc/passwd")).toBe("path_escape");
    expect(await refused("skill://house-style/references/../../..")).toBe("path_escape");
    expect(await refused("skill://bells/../../../../secret.txt")).toBe("path_escape");
    expect(await refused("skill://house-style//etc/passwd")).toBe("path_escape");
    expect(await refused("skill://../secret.txt")).toBe("invalid_input");
    expect(await refused("skill://no-such-skill/SKILL.md")).toBe("not_found");
    expect(await refused("skill://house-style/missing.md")).toBe("not_found");
  });

  it("refuses symbolic links that lead out of the skill folder", async () => {
    symlinkSync(join(bed.dir, "secret.txt"), join(wsSkill, "references", "link.md"));
    symlinkSync(bed.dir, join(wsSkill, "up"));
    symlinkSync(join(bed.dir, "secret.txt"), join(projectSkill, "out.md"));
    expect(await refused("skill://house-style/references/link.md")).toBe("path_escape");
    expect(await refused("skill://house-style/up/secret.txt")).toBe("path_escape");
    expect(await refused("skill://bells/out.md")).toBe("path_escape");
  });

  it("refuses a hard link (its other name may be anywhere)", async () => {
    writeFileSync(join(bed.dir, "other-secret.txt"), "TOP SECRET too\n");
    linkSync(join(bed.dir, "other-secret.txt"), join(wsSkill, "hard.md"));
    expect(await refused("skill://house-style/hard.md")).toBe("path_escape");
  });

  it("follows a link that stays inside the skill folder", async () => {
    symlinkSync(join(wsSkill, "references", "words.md"), join(wsSkill, "alias.md"));
    const r = await read("skill://house-style/alias.md");
    expect(r.ok && r.text).toContain("Never write 'suddenly'.");
  });
});
