import { execFileSync } from "node:child_process";
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed("novel");
});
afterEach(() => bed.cleanup());

const abs = (p: string) => join(bed.project.root, p);

describe("read", () => {
  it("numbers lines, pages with offset/limit and says how to continue", async () => {
    writeFileSync(abs("ch.md"), `${Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n")}\n`);
    const r = await bed.call("read", { path: "ch.md", offset: 3, limit: 4 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.text.split("\n").slice(0, 4)).toEqual(["3\tline 3", "4\tline 4", "5\tline 5", "6\tline 6"]);
    expect(r.text).toContain("[Showing lines 3-6 of 10. Use offset=7 to continue.]");
    expect(r.details).toMatchObject({ startLine: 3, endLine: 6, totalLines: 10, nextOffset: 7 });
  });

  it("caps a long file at 2,000 lines", async () => {
    writeFileSync(abs("long.md"), Array.from({ length: 3000 }, (_, i) => `l${i + 1}`).join("\n"));
    const r = await bed.call("read", { path: "long.md" });
    expect(r.ok && r.text).toContain("[Showing lines 1-1999 of 3000. Use offset=2000 to continue.]");
    expect(r.ok && r.truncated).toBeFalsy();
  });

  it("reads a single over-long line in pieces", async () => {
    const line = "x".repeat(120_000);
    writeFileSync(abs("one.md"), `${line}\nsecond\n`);
    const first = await bed.call("read", { path: "one.md" });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    const d = first.details as { nextOffset: number; nextColumn: number };
    expect(d.nextOffset).toBe(1);
    expect(d.nextColumn).toBeGreaterThan(40_000);
    expect(first.text).toContain(`Use offset=1, column=${d.nextColumn} to continue.`);
    let column = d.nextColumn;
    let seen = d.nextColumn;
    for (let i = 0; i < 5 && column < line.length; i++) {
      const r = await bed.call("read", { path: "one.md", offset: 1, column });
      if (!r.ok) throw new Error(r.error.message);
      const dd = r.details as { nextColumn?: number; endLine: number };
      if (dd.nextColumn === undefined) {
        seen = line.length;
        expect(r.text).toContain("second");
        break;
      }
      seen = column = dd.nextColumn;
    }
    expect(seen).toBe(line.length);
  });

  it("lists a folder and refuses binary files", async () => {
    const dir = await bed.call("read", { path: "lorebook" });
    expect(dir.ok && dir.text).toContain("index.md");
    writeFileSync(abs("pic.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
    const bin = await bed.call("read", { path: "pic.png" });
    expect(!bin.ok && bin.error.code).toBe("unsupported");
  });

  it("reports a missing file as not_found and an offset past the end as invalid_input", async () => {
    const r = await bed.call("read", { path: "nope.md" });
    expect(!r.ok && r.error.code).toBe("not_found");
    writeFileSync(abs("short.md"), "a\nb\n");
    const past = await bed.call("read", { path: "short.md", offset: 5 });
    expect(!past.ok && past.error.message).toContain("beyond the end");
  });
});

describe("special files", () => {
  it("refuses a FIFO instead of blocking on it, for read, write, edit and apply_patch", async () => {
    execFileSync("mkfifo", [abs("pipe.md")]);
    const calls: [string, unknown][] = [
      ["read", { path: "pipe.md" }],
      ["write", { path: "pipe.md", content: "x" }],
      ["edit", { path: "pipe.md", edits: [{ oldText: "a", newText: "b" }] }],
      ["apply_patch", { patch: "*** Begin Patch\n*** Update File: pipe.md\n@@\n-a\n+b\n*** End Patch" }],
    ];
    for (const [key, input] of calls) {
      const r = await bed.call(key, input);
      expect(r.ok).toBe(false);
      if (!r.ok)
        expect(r.error).toMatchObject({ code: "unsupported", message: "pipe.md is not a regular file" });
    }
    expect(statSync(abs("pipe.md")).isFIFO()).toBe(true);
  });

  it("answers a binary or missing file with the same code whichever tool touches it", async () => {
    writeFileSync(abs("pic.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
    const update = (path: string) => ({
      patch: `*** Begin Patch\n*** Update File: ${path}\n@@\n-a\n+b\n*** End Patch`,
    });
    const edit = (path: string) => ({ path, edits: [{ oldText: "a", newText: "b" }] });
    const codes = async (path: string) =>
      Promise.all(
        (
          [
            ["read", { path }],
            ["edit", edit(path)],
            ["apply_patch", update(path)],
          ] as const
        ).map(async ([key, input]) => {
          const r = await bed.call(key, input);
          return r.ok ? "ok" : r.error.code;
        }),
      );
    expect(await codes("pic.png")).toEqual(["unsupported", "unsupported", "unsupported"]);
    expect(await codes("gone.md")).toEqual(["not_found", "not_found", "not_found"]);
    const del = await bed.call("apply_patch", {
      patch: "*** Begin Patch\n*** Delete File: gone.md\n*** End Patch",
    });
    expect(!del.ok && del.error.code).toBe("not_found");
  });

  it("keeps an executable file executable through write, edit and apply_patch", async () => {
    writeFileSync(abs("build.sh"), "#!/bin/sh\necho one\n");
    chmodSync(abs("build.sh"), 0o750);
    await bed.call("write", { path: "build.sh", content: "#!/bin/sh\necho two\n" });
    expect(statSync(abs("build.sh")).mode & 0o777).toBe(0o750);
    await bed.call("edit", { path: "build.sh", edits: [{ oldText: "two", newText: "three" }] });
    expect(statSync(abs("build.sh")).mode & 0o777).toBe(0o750);
    await bed.call("apply_patch", {
      patch: "*** Begin Patch\n*** Update File: build.sh\n@@\n-echo three\n+echo four\n*** End Patch",
    });
    expect(statSync(abs("build.sh")).mode & 0o777).toBe(0o750);
    expect(readFileSync(abs("build.sh"), "utf8")).toBe("#!/bin/sh\necho four\n");
  });
});

describe("write", () => {
  it("creates parent folders atomically and reports bytes written", async () => {
    const r = await bed.call("write", { path: "manuscript/03-new/index.md", content: "# New\n" });
    expect(r.ok && r.text).toContain("(6 bytes)");
    expect(readFileSync(abs("manuscript/03-new/index.md"), "utf8")).toBe("# New\n");
    expect(readdirSync(abs("manuscript/03-new"))).toEqual(["index.md"]);
  });

  it("writes a file whose name is near the 255-byte limit (the temp file must fit too)", async () => {
    const name = `${"x".repeat(247)}.md`;
    const r = await bed.call("write", { path: `lorebook/${name}`, content: "long\n" });
    expect(r.ok).toBe(true);
    expect(readFileSync(abs(`lorebook/${name}`), "utf8")).toBe("long\n");
    expect(readdirSync(abs("lorebook")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("keeps CRLF line endings of an existing file", async () => {
    writeFileSync(abs("crlf.md"), "one\r\ntwo\r\n");
    await bed.call("write", { path: "crlf.md", content: "uno\ndos\n" });
    expect(readFileSync(abs("crlf.md"), "utf8")).toBe("uno\r\ndos\r\n");
  });
});

describe("edit", () => {
  beforeEach(() => writeFileSync(abs("ch.md"), "The bell rang.\nThe bell rang again.\nMira counted.\n"));

  it("applies several edits against the original and returns a diff", async () => {
    const r = await bed.call("edit", {
      path: "ch.md",
      edits: [
        { oldText: "Mira counted.", newText: "Mira counted to three." },
        { oldText: "rang again", newText: "rang a second time" },
      ],
    });
    expect(r.ok).toBe(true);
    expect(readFileSync(abs("ch.md"), "utf8")).toBe(
      "The bell rang.\nThe bell rang a second time.\nMira counted to three.\n",
    );
    expect(r.ok && r.text).toContain("+Mira counted to three.");
  });

  it("names each failing edit and writes nothing", async () => {
    const r = await bed.call("edit", {
      path: "ch.md",
      edits: [
        { oldText: "The bell rang", newText: "x" },
        { oldText: "absent text", newText: "y" },
        { oldText: "Mira counted.", newText: "Mira counted!" },
      ],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("invalid_input");
    expect(r.error.fields).toEqual([
      { pointer: "/edits/0/oldText", message: expect.stringContaining("found 2 times (at lines 1, 2)") },
      { pointer: "/edits/1/oldText", message: expect.stringContaining("not found") },
    ]);
    expect(readFileSync(abs("ch.md"), "utf8")).toBe("The bell rang.\nThe bell rang again.\nMira counted.\n");
  });

  it("refuses overlapping edits", async () => {
    const r = await bed.call("edit", {
      path: "ch.md",
      edits: [
        { oldText: "rang again.\nMira", newText: "x" },
        { oldText: "again.", newText: "y" },
      ],
    });
    expect(!r.ok && r.error.message).toContain("overlaps");
  });

  it("matches LF oldText in a CRLF file and keeps CRLF", async () => {
    writeFileSync(abs("crlf.md"), "one\r\ntwo\r\nthree\r\n");
    const r = await bed.call("edit", {
      path: "crlf.md",
      edits: [{ oldText: "one\ntwo", newText: "one\n2" }],
    });
    expect(r.ok).toBe(true);
    expect(readFileSync(abs("crlf.md"), "utf8")).toBe("one\r\n2\r\nthree\r\n");
  });
});

describe("apply_patch", () => {
  it("leaves the disk untouched when a later operation fails", async () => {
    writeFileSync(abs("a.md"), "alpha\n");
    const r = await bed.call("apply_patch", {
      patch:
        "*** Begin Patch\n*** Add File: new.md\n+hi\n*** Update File: a.md\n@@\n-alpha\n+ALPHA\n*** Update File: missing.md\n@@\n-x\n+y\n*** End Patch",
    });
    expect(r.ok).toBe(false);
    expect(readdirSync(bed.project.root)).not.toContain("new.md");
    expect(readFileSync(abs("a.md"), "utf8")).toBe("alpha\n");
  });

  it("detects an ambiguous match and honours @@ anchors", async () => {
    writeFileSync(abs("two.md"), "# One\nsame\n# Two\nsame\n");
    const amb = await bed.call("apply_patch", {
      patch: "*** Begin Patch\n*** Update File: two.md\n@@\n-same\n+changed\n*** End Patch",
    });
    expect(!amb.ok && amb.error.message).toContain("ambiguous");
    const ok = await bed.call("apply_patch", {
      patch: "*** Begin Patch\n*** Update File: two.md\n@@ # Two\n-same\n+changed\n*** End Patch",
    });
    expect(ok.ok).toBe(true);
    expect(readFileSync(abs("two.md"), "utf8")).toBe("# One\nsame\n# Two\nchanged\n");
  });

  it("takes the context at its first match after an anchor, and nested anchors likewise", async () => {
    writeFileSync(abs("ch.md"), "# One\n## Scene\nsame\n# Two\n## Scene\nsame\n# Three\n## Scene\nsame\n");
    const anchored = await bed.call("apply_patch", {
      patch: "*** Begin Patch\n*** Update File: ch.md\n@@ # Two\n-same\n+two\n*** End Patch",
    });
    expect(anchored.ok).toBe(true);
    const nested = await bed.call("apply_patch", {
      patch: "*** Begin Patch\n*** Update File: ch.md\n@@ # Three\n@@ ## Scene\n-same\n+three\n*** End Patch",
    });
    expect(nested.ok).toBe(true);
    expect(readFileSync(abs("ch.md"), "utf8")).toBe(
      "# One\n## Scene\nsame\n# Two\n## Scene\ntwo\n# Three\n## Scene\nthree\n",
    );
    const ambiguousAnchor = await bed.call("apply_patch", {
      patch: "*** Begin Patch\n*** Update File: ch.md\n@@ ## Scene\n-same\n+x\n*** End Patch",
    });
    expect(!ambiguousAnchor.ok && ambiguousAnchor.error.message).toContain(
      'Anchor "@@ ## Scene" in ch.md is ambiguous',
    );
  });

  it("keeps CRLF in updated files", async () => {
    writeFileSync(abs("crlf.md"), "a\r\nb\r\n");
    await bed.call("apply_patch", {
      patch: "*** Begin Patch\n*** Update File: crlf.md\n@@\n a\n-b\n+B\n*** End Patch",
    });
    expect(readFileSync(abs("crlf.md"), "utf8")).toBe("a\r\nB\r\n");
  });
});

describe("bash", () => {
  it("runs in the project folder and reports a non-zero exit code", async () => {
    const r = await bed.call("bash", { command: "ls; exit 3" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.text).toContain("project.yaml");
    expect(r.text).toContain("[Exit code 3]");
    expect(r.details).toMatchObject({ exitCode: 3 });
  });

  it("kills the process group on timeout and returns the output so far", async () => {
    const r = await bed.call("bash", {
      command: "echo started; (sleep 30; echo child) & sleep 30",
      timeout: 0.5,
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("timeout");
    expect(r.error.message).toContain("started");
    expect(r.error.message).toContain("process group was killed");
  });

  it("returns once bash exits, even when a process it started holds the output pipe open", async () => {
    // The sleep must not hold the call open (test/security/bash-confinement.test.ts shows it is gone).
    const r = await bed.call("bash", { command: "setsid sleep 120 & echo started" });
    expect(r.ok).toBe(true);
    expect(r.ok && r.text).toContain("started");
    expect(r.ok && r.details).toMatchObject({ exitCode: 0, timedOut: false });
  });

  it("keeps the tail of long output and spills the full output to a locator read can open", async () => {
    const r = await bed.call("bash", { command: "seq 1 5000" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.text).toContain("5000");
    expect(r.text).not.toMatch(/^1\n/);
    const locator = (r.details as { fullOutput: string }).fullOutput;
    expect(locator).toMatch(/^bash-output:\/\/[0-9a-f-]{36}\/output\.log$/);
    expect(r.text).not.toContain(bed.dir);
    const full = await bed.call("read", { path: locator, offset: 1, limit: 2 });
    expect(full.ok && full.text).toContain("1\t1\n2\t2");
    const bogus = await bed.call("read", { path: "bash-output://../../etc/passwd" });
    expect(!bogus.ok && bogus.error.code).toBe("invalid_input");
  });

  it("refuses a timeout above 600 s, and background outside an agent session (no owner to tell)", async () => {
    const r = await bed.call("bash", { command: "true", timeout: 601 });
    expect(!r.ok && r.error.fields?.[0].pointer).toBe("/timeout");
    const bg = await bed.call("bash", { command: "true", background: true });
    expect(!bg.ok && bg.error.code).toBe("unsupported");
    expect(!bg.ok && bg.error.message).toMatch(/only inside an agent session/);
  });
});
