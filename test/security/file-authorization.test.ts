import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
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
  it("a hard link under .agent/plan/ is refused, never written through", async () => {
    const alias = join(bed.project.root, ".agent", "plan", "mira.md");
    linkSync(canon, alias);
    const w = await bed.call(
      "write",
      { path: ".agent/plan/mira.md", content: "Mira is eighteen.\n" },
      { mode: "plan" },
    );
    expect(!w.ok && w.error.code).toBe("path_escape");
    const e = await bed.call(
      "edit",
      { path: ".agent/plan/mira.md", edits: [{ oldText: "seventeen", newText: "nineteen" }] },
      { mode: "plan" },
    );
    expect(!e.ok && e.error.code).toBe("path_escape");
    expect(readFileSync(canon, "utf8")).toBe("Mira is seventeen.\n");
    expect(lstatSync(canon).nlink).toBe(2);
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

describe("hard links", () => {
  let outside: string;
  let secret: string;
  beforeEach(() => {
    // The same file system as the project (a hard link cannot cross one), outside its root.
    outside = join(bed.dir, "outside");
    mkdirSync(outside);
    secret = join(outside, "secret.txt");
    writeFileSync(secret, "SECRET-CONTENT\n");
    linkSync(secret, join(bed.project.root, "lorebook", "innocent.md"));
  });

  it("every file tool refuses a file with more than one name, and nothing of it leaks", async () => {
    const patch = [
      "*** Begin Patch",
      "*** Update File: lorebook/innocent.md",
      "@@",
      "-SECRET-CONTENT",
      "+changed",
      "*** End Patch",
    ].join("\n");
    const calls: [string, unknown][] = [
      ["read", { path: "lorebook/innocent.md" }],
      ["read", { path: "workspace/novel/lorebook/innocent.md" }],
      ["edit", { path: "lorebook/innocent.md", edits: [{ oldText: "SECRET", newText: "x" }] }],
      ["write", { path: "lorebook/innocent.md", content: "x\n" }],
      ["apply_patch", { patch }],
    ];
    for (const [key, input] of calls) {
      for (const mode of ["normal", "discuss"] as const) {
        const r = await bed.call(key, input, { mode });
        expect(!r.ok && r.error.code, `${key} in ${mode}`).toBe("path_escape");
        expect(JSON.stringify(r)).not.toContain("SECRET-CONTENT");
        expect(JSON.stringify(r)).not.toContain(outside);
      }
    }
    const r = await bed.call("read", { path: "lorebook/innocent.md" });
    expect(!r.ok && r.error.message).toContain("is a hard link (the file has 2 names");
    expect(readFileSync(secret, "utf8")).toBe("SECRET-CONTENT\n");
  });

  it("a symbolic link to a hard-linked file is refused too; a folder listing still works", async () => {
    symlinkSync("innocent.md", join(bed.project.root, "lorebook", "alias.md"));
    const r = await bed.call("read", { path: "lorebook/alias.md" });
    expect(!r.ok && r.error.code).toBe("path_escape");
    const list = await bed.call("read", { path: "lorebook" });
    expect(list.ok).toBe(true);
    const plain = await bed.call("read", { path: "lorebook/mira.md" });
    expect(plain.ok && plain.text).toContain("Mira is seventeen.");
  });
});

describe("the .nbook/ control area behind a symbolic link", () => {
  it("is judged on its real path: neither the link's name nor the real folder's name can be written", async () => {
    const root = bed.project.root;
    renameSync(join(root, ".nbook"), join(root, "lorebook", "store"));
    symlinkSync(join("lorebook", "store"), join(root, ".nbook"));
    for (const path of [
      ".nbook/agent/profiles/writer.yaml",
      "lorebook/store/agent/profiles/writer.yaml",
      "workspace/novel/lorebook/store/config.json",
    ]) {
      const r = await bed.call("write", {
        path,
        content: "key: writer\nname: w\ntools: [bash]\nprompt: x\n",
      });
      expect(!r.ok && r.error.code, path).toBe("not_allowed");
    }
    expect(existsSync(join(root, "lorebook", "store", "agent", "profiles", "writer.yaml"))).toBe(false);
    const elsewhere = await bed.call("write", { path: "lorebook/storefront.md", content: "ok\n" });
    expect(elsewhere.ok).toBe(true);
  });
});

describe("a file swapped between authorisation and reading", () => {
  it("is checked again once opened: a hard link or a symlink out of the project is not read", async () => {
    const { authorize, readTextOrNull } = await import("../../src/tools/files/common.js");
    const outside = mkdtempSync(join(tmpdir(), "nb-outside-"));
    try {
      const secret = join(outside, "secret.txt");
      writeFileSync(secret, "the workspace's secret\n");
      const ctx = {
        workspace: bed.ws,
        project: bed.project,
        mode: "normal" as const,
        profileKey: null,
        binding: {},
        worldFiles: "readwrite" as const,
        approved: false,
      };
      // Authorised while it is an ordinary file of the project…
      const r = authorize(ctx, "lorebook/mira.md", "read");
      expect(await readTextOrNull(r)).toBe("Mira is seventeen.\n");
      // …then replaced by a second name of a file outside it.
      rmSync(canon);
      linkSync(secret, canon);
      await expect(readTextOrNull(r)).rejects.toMatchObject({ code: "path_escape" });
      // …or by a symlink to it.
      rmSync(canon);
      symlinkSync(secret, canon);
      await expect(readTextOrNull(r)).rejects.toMatchObject({ code: "path_escape" });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

describe("read-only addresses", () => {
  it("write, edit and apply_patch refuse skill:// and bash-output:// instead of creating a folder named after the scheme", async () => {
    const w = await bed.call("write", { path: "skill://keep-canon/SKILL.md", content: "x" });
    expect(!w.ok && w.error.code).toBe("invalid_input");
    const e = await bed.call("edit", {
      path: "bash-output://0000/output.log",
      edits: [{ oldText: "a", newText: "b" }],
    });
    expect(!e.ok && e.error.code).toBe("invalid_input");
    const p = await bed.call("apply_patch", {
      patch: "*** Begin Patch\n*** Add File: skill://x/a.md\n+hi\n*** End Patch",
    });
    expect(!p.ok && p.error.code).toBe("invalid_input");
    expect(!p.ok && p.error.message).toContain("read-only address");
    expect(existsSync(join(bed.project.root, "skill:"))).toBe(false);
    expect(existsSync(join(bed.project.root, "bash-output:"))).toBe(false);
  });
});
