import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveFileAddress } from "../../src/workspace/paths.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
let outside: string;

beforeEach(() => {
  bed = makeTestBed("novel");
  bed.ws.createProject("other");
  outside = join(bed.dir, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "top secret\n");
});
afterEach(() => bed.cleanup());

/** Where a path really lands: its nearest existing ancestor through symlinks, plus the rest. */
function realOf(p: string): string {
  let cur = p;
  const rest: string[] = [];
  while (!existsSync(cur)) {
    rest.unshift(basename(cur));
    cur = dirname(cur);
  }
  return join(realpathSync(cur), ...rest);
}

function expectEscape(r: Awaited<ReturnType<TestBed["call"]>>) {
  expect(r.ok).toBe(false);
  if (!r.ok) expect(r.error.code).toBe("path_escape");
}

describe("file authorization", () => {
  const attempts = [
    "../outside/secret.txt",
    "../../outside/secret.txt",
    "lorebook/../../outside/secret.txt",
    "/etc/passwd",
    "C:/Windows/win.ini",
    "~/secret.txt",
    "workspace/other/../../outside/secret.txt",
    "workspace/missing/file.md",
    "workspace/other",
    "workspace/other/",
    "a\0b.md",
    "",
    "   ",
    `${"a/".repeat(600)}x.md`,
    `${"x".repeat(300)}.md`,
  ];

  for (const path of attempts) {
    it(`refuses read of ${JSON.stringify(path.slice(0, 50))}`, async () => {
      expectEscape(await bed.call("read", { path }));
    });
    it(`refuses write to ${JSON.stringify(path.slice(0, 50))}`, async () => {
      expectEscape(await bed.call("write", { path, content: "pwned" }));
      expect(readdirSync(outside)).toEqual(["secret.txt"]);
    });
    it(`refuses edit and apply_patch of ${JSON.stringify(path.slice(0, 50))}`, async () => {
      const e = await bed.call("edit", { path, edits: [{ oldText: "top", newText: "pwned" }] });
      expectEscape(e);
      expect(JSON.stringify(e)).not.toContain("top secret");
      // A blank path cannot even be written in a patch header (that is a syntax error).
      if (path.trim() !== "") {
        for (const op of [`*** Add File: ${path}\n+pwned`, `*** Delete File: ${path}`]) {
          expectEscape(await bed.call("apply_patch", { patch: `*** Begin Patch\n${op}\n*** End Patch` }));
        }
        const update = `*** Begin Patch\n*** Update File: ${path}\n@@\n-top secret\n+pwned\n*** End Patch`;
        expectEscape(await bed.call("apply_patch", { patch: update }));
      }
      expect(readdirSync(outside)).toEqual(["secret.txt"]);
      expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
    });
  }

  it("lists the project root for read, but refuses it as a file target", async () => {
    for (const path of [".", "./"]) {
      const r = await bed.call("read", { path });
      expect(r.ok && r.text).toContain("lorebook/");
      expectEscape(await bed.call("write", { path, content: "x" }));
      expectEscape(await bed.call("edit", { path, edits: [{ oldText: "a", newText: "b" }] }));
    }
  });

  it("refuses a symlink inside the project that points outside, for read and write", async () => {
    symlinkSync(join(outside, "secret.txt"), join(bed.project.root, "lorebook", "link.md"));
    const r = await bed.call("read", { path: "lorebook/link.md" });
    expectEscape(r);
    expect(JSON.stringify(r)).not.toContain("top secret");
    expectEscape(await bed.call("write", { path: "lorebook/link.md", content: "pwned" }));
    expectEscape(
      await bed.call("edit", { path: "lorebook/link.md", edits: [{ oldText: "top", newText: "x" }] }),
    );
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("top secret\n");
  });

  it("refuses a new file under a symlinked parent folder that points outside", async () => {
    symlinkSync(outside, join(bed.project.root, "manuscript", "escape"));
    expectEscape(await bed.call("write", { path: "manuscript/escape/new.md", content: "pwned" }));
    expectEscape(await bed.call("write", { path: "manuscript/escape/deeper/new.md", content: "pwned" }));
    expectEscape(
      await bed.call("apply_patch", {
        patch: "*** Begin Patch\n*** Add File: manuscript/escape/p.md\n+x\n*** End Patch",
      }),
    );
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });

  it("refuses a dangling symlink as a write target", async () => {
    symlinkSync(join(outside, "created-by-attack.txt"), join(bed.project.root, "dangling.md"));
    expectEscape(await bed.call("write", { path: "dangling.md", content: "pwned" }));
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });

  it("refuses apply_patch Move targets and Delete paths outside the project, touching nothing", async () => {
    await bed.call("write", { path: "notes.md", content: "a\n" });
    const patch =
      "*** Begin Patch\n*** Update File: notes.md\n*** Move to: ../outside/moved.md\n@@\n-a\n+b\n*** End Patch";
    expectEscape(await bed.call("apply_patch", { patch }));
    expect(readFileSync(join(bed.project.root, "notes.md"), "utf8")).toBe("a\n");
    expectEscape(
      await bed.call("apply_patch", {
        patch: "*** Begin Patch\n*** Delete File: ../outside/secret.txt\n*** End Patch",
      }),
    );
    expect(readdirSync(outside)).toEqual(["secret.txt"]);
  });

  it("allows a symlink that stays inside the project", async () => {
    writeFileSync(join(bed.project.root, "lorebook", "real.md"), "inside\n");
    symlinkSync(join(bed.project.root, "lorebook", "real.md"), join(bed.project.root, "alias.md"));
    const r = await bed.call("read", { path: "alias.md" });
    expect(r.ok && r.text).toContain("inside");
  });

  it("addresses another project through workspace/<project>/<path>", async () => {
    const w = await bed.call("write", { path: "workspace/other/lorebook/x.md", content: "hello\n" });
    expect(w.ok).toBe(true);
    expect(readFileSync(join(bed.ws.root, "other", "lorebook", "x.md"), "utf8")).toBe("hello\n");
    const r = await bed.call("read", { path: "workspace/other/lorebook/x.md" });
    expect(r.ok && r.text).toContain("hello");
  });

  it("gives a helpful error when the path repeats the project folder name", async () => {
    const r = await bed.call("read", { path: "novel/lorebook/index.md" });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toContain('drop the leading "novel/"');
  });

  it("refuses writes to the project's .nbook/ control area, also through a symlinked folder", async () => {
    const root = bed.project.root;
    writeFileSync(join(root, ".nbook", "world.sqlite"), "db");
    writeFileSync(join(root, ".nbook", "agent", "profiles", "scout.yaml"), "key: scout\n");
    symlinkSync(join(root, ".nbook"), join(root, "control"));
    const attempts: [string, unknown][] = [
      ["write", { path: ".nbook/world.sqlite", content: "x" }],
      ["write", { path: "control/world.sqlite", content: "x" }],
      ["write", { path: "workspace/novel/.nbook/project.sqlite-wal", content: "x" }],
      ["write", { path: ".nbook/agent/profiles/writer.yaml", content: "key: writer\n" }],
      ["edit", { path: "control/agent/profiles/scout.yaml", edits: [{ oldText: "scout", newText: "x" }] }],
      ["apply_patch", { patch: "*** Begin Patch\n*** Delete File: control/world.sqlite\n*** End Patch" }],
      [
        "apply_patch",
        {
          patch:
            "*** Begin Patch\n*** Add File: notes.md\n+x\n*** Update File: lorebook/index.md\n*** Move to: .nbook/agent/profiles/leak.yaml\n@@\n-# Lorebook\n+key: leak\n*** End Patch",
        },
      ],
    ];
    for (const [key, input] of attempts) {
      const r = await bed.call(key, input);
      expect(!r.ok && r.error.code).toBe("not_allowed");
    }
    expect(readFileSync(join(root, ".nbook", "world.sqlite"), "utf8")).toBe("db");
    expect(readdirSync(join(root, ".nbook", "agent", "profiles"))).toEqual(["scout.yaml"]);
    expect(readdirSync(root)).not.toContain("notes.md");
    const read = await bed.call("read", { path: ".nbook/agent/profiles/scout.yaml" });
    expect(read.ok && read.text).toContain("key: scout");
  });

  it("never reveals host absolute paths in errors", async () => {
    for (const input of [
      { path: "missing.md" },
      { path: "../outside/secret.txt" },
      { path: "lorebook/nope/x.md" },
    ]) {
      const r = await bed.call("read", input);
      expect(JSON.stringify(r)).not.toContain(bed.dir);
    }
  });

  it("property: random paths, through symlinks too, never resolve outside the project root", () => {
    const root = bed.project.root;
    symlinkSync(outside, join(root, "lorebook", "out"));
    symlinkSync(join(root, "lorebook"), join(root, "inlink"));
    symlinkSync(join(outside, "missing"), join(root, "dangling"));
    const seg = fc.oneof(
      fc.constantFrom("..", ".", "", "lorebook", "a", "workspace", "other", "novel", "~", "..."),
      fc.constantFrom("out", "inlink", "dangling", "secret.txt"),
      fc.stringMatching(/^[a-z.\\/~]{1,6}$/),
    );
    const roots = [bed.project.realRoot, bed.ws.project("other").realRoot];
    fc.assert(
      fc.property(fc.array(seg, { minLength: 1, maxLength: 8 }), (segs) => {
        const path = segs.join("/");
        try {
          const r = resolveFileAddress(bed.ws, bed.project, path, { allowRoot: true });
          expect(r.abs === r.project.root || r.abs.startsWith(`${r.project.root}/`)).toBe(true);
          expect(roots).toContain(r.project.realRoot);
          const real = realOf(r.abs);
          expect(real === r.project.realRoot || real.startsWith(`${r.project.realRoot}/`)).toBe(true);
        } catch (e) {
          expect(["path_escape", "invalid_input"]).toContain((e as { code?: string }).code);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
