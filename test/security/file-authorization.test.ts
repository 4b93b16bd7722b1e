import {
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../src/core/atomic-write.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
let canon: string;
beforeEach(() => {
  bed = makeTestBed("novel");
  canon = join(bed.project.root, "lorebook", "mira.md");
  writeFileSync(canon, "Mira is seventeen.\n");
  mkdirSync(join(bed.project.root, ".agent", "plan"), { recursive: true });
});
afterEach(() => bed.cleanup());

describe("plan mode: the .agent/plan/ exemption", () => {
  it("a hard link under .agent/plan/ is replaced by the write, never written through", async () => {
    const alias = join(bed.project.root, ".agent", "plan", "mira.md");
    linkSync(canon, alias);
    const w = await bed.call(
      "write",
      { path: ".agent/plan/mira.md", content: "Mira is eighteen.\n" },
      { mode: "plan" },
    );
    expect(w.ok).toBe(true);
    const e = await bed.call(
      "edit",
      { path: ".agent/plan/mira.md", edits: [{ oldText: "eighteen", newText: "nineteen" }] },
      { mode: "plan" },
    );
    expect(e.ok).toBe(true);
    expect(readFileSync(alias, "utf8")).toBe("Mira is nineteen.\n");
    expect(readFileSync(canon, "utf8")).toBe("Mira is seventeen.\n");
    expect(lstatSync(canon).nlink).toBe(1);
  });

  it("case, Unicode and separator tricks never widen it: each such write waits for approval", async () => {
    for (const path of [
      ".AGENT/plan/a.md",
      ".agent/PLAN/a.md",
      ".agent/plan\uFF0Fa.md",
      ".agent/plan/a.md/",
      ".agent/plan//a.md",
      ".agent/plan/./a.md",
      ".agent\\plan\\..\\..\\lorebook\\mira.md",
      "workspace/novel/.agent/plan/../../lorebook/mira.md",
    ]) {
      const r = await bed.call("write", { path, content: "Mira is eighteen.\n" }, { mode: "plan" });
      expect(!r.ok && r.error.code, path).toBe("approval_required");
    }
    expect(readFileSync(canon, "utf8")).toBe("Mira is seventeen.\n");
  });
});

describe("the final write step", () => {
  it("replaces a symbolic link placed at the target instead of following it", async () => {
    const outside = mkdtempSync(join(tmpdir(), "nbook-outside-"));
    try {
      const secret = join(outside, "secret.txt");
      writeFileSync(secret, "untouched\n");
      const target = join(bed.project.root, "lorebook", "swapped.md");
      // As if the link appeared between authorization and the write.
      symlinkSync(secret, target);
      await writeFileAtomic(target, "new text\n");
      expect(lstatSync(target).isSymbolicLink()).toBe(false);
      expect(readFileSync(target, "utf8")).toBe("new text\n");
      expect(readFileSync(secret, "utf8")).toBe("untouched\n");
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
