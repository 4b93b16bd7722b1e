import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { DispatchResult } from "../../src/tools/types.js";
import { type HarnessFixture, harnessFixture } from "../harness-fixture.js";
import { makeTestBed, runNbook, type TestBed } from "../helpers.js";

let bed: TestBed;

beforeAll(() => {
  bed = makeTestBed("novel");
  bed.ws.createProject("other");
  writeFileSync(join(bed.project.root, "chapter.md"), "Once.\n");
  writeFileSync(join(bed.ws.root, "other", "notes.md"), "other's notes\n");
});
afterAll(() => bed.cleanup());

const abs = (...parts: string[]) => join(bed.project.root, ...parts);

/** A sleep duration no other process on the machine is likely to use, to find the sleeps by. */
const uniqueSleep = () => String(7000 + Math.floor(Math.random() * 2000));

/** Kill the host processes whose command line has `tag` as an argument; return their pids. */
function killSurvivors(tag: string): string[] {
  const found = readdirSync("/proc").filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(tag);
    } catch {
      return false;
    }
  });
  for (const pid of found) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {} // it ended meanwhile; it was still there when the call returned, which is the failure
  }
  return found;
}

/** The text of a result, ok or not (a failing command is still an ok bash call with an exit code). */
function textOf(r: DispatchResult): string {
  return r.ok ? r.text : `${r.error.code}: ${r.error.message}`;
}

describe("bash in a read-only mode is gated like any write", () => {
  for (const mode of ["plan", "discuss"] as const) {
    it(`${mode} mode stops a bash call with approval_required, the command as preview, and runs nothing`, async () => {
      const command = "echo appended >> chapter.md; touch made-by-bash.txt";
      const r = await bed.call("bash", { command, timeout: 30 }, { mode });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.code).toBe("approval_required");
      const preview = (r.error.details as { preview: { text: string; details: unknown } }).preview;
      expect(preview.text).toContain(`$ ${command}`);
      expect(preview.text).toContain("project novel, timeout 30 s");
      expect(preview.details).toMatchObject({ command, project: "novel", timeout: 30, confined: true });
      expect(readFileSync(abs("chapter.md"), "utf8")).toBe("Once.\n");
      expect(existsSync(abs("made-by-bash.txt"))).toBe(false);
    });
  }

  it("a plan-mode agent run that appends to a chapter through bash waits for approval", async () => {
    const fx: HarnessFixture = harnessFixture([
      {
        toolCalls: [
          { name: "bash", input: { command: "echo 'The end.' >> manuscript/01-the-drowned-bell/index.md" } },
        ],
      },
      { text: "done" },
    ]);
    try {
      const chapter = join(fx.project.root, "manuscript", "01-the-drowned-bell", "index.md");
      const before = readFileSync(chapter, "utf8");
      const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel", mode: "plan" });
      const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "Finish the chapter" });
      expect(r.status).toBe("waiting");
      expect(r.pending).toMatchObject({ kind: "write", tool: "bash" });
      expect(r.pending?.preview).toContain("$ echo 'The end.' >> manuscript/01-the-drowned-bell/index.md");
      expect(readFileSync(chapter, "utf8")).toBe(before);
    } finally {
      fx.close();
    }
  });

  it("once approved, the call runs confined and writes inside the project", async () => {
    const r = await bed.call(
      "bash",
      { command: "echo approved > approved.txt" },
      { mode: "plan", approved: true },
    );
    expect(r.ok).toBe(true);
    expect(readFileSync(abs("approved.txt"), "utf8")).toBe("approved\n");
  });
});

describe("bash runs confined to the project", () => {
  it("writes inside the project, in a throwaway home, with an allowlisted environment", async () => {
    const r = await bed.call("bash", {
      command:
        'mkdir -p notes && echo hi > notes/x.md && touch "$HOME/h" && echo "home=$HOME root=$NBOOK_PROJECT_ROOT" && echo --- && env | sort',
    });
    expect(r.ok).toBe(true);
    expect(readFileSync(abs("notes", "x.md"), "utf8")).toBe("hi\n");
    const names = textOf(r)
      .split("---\n")[1]
      .split("\n")
      .filter((l) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(l))
      .map((l) => l.slice(0, l.indexOf("=")));
    for (const name of names)
      expect(name).toMatch(/^(PATH|HOME|NBOOK_PROJECT_ROOT|LANG|LANGUAGE|LC_\w+|TERM|TZ|PWD|SHLVL|_)$/);
    expect(textOf(r)).toContain("home=/tmp/home root=/project");
  });

  it("refuses writes to the project's .nbook/ and hides its databases", async () => {
    writeFileSync(join(bed.project.root, ".nbook", "marker.txt"), "control area\n");
    const r = await bed.call("bash", {
      command:
        'echo "listing:[$(ls -A .nbook)]"; cat .nbook/marker.txt; touch .nbook/evil; mkdir -p .nbook/agent/profiles && echo x > .nbook/agent/profiles/evil.yaml; rm -rf .nbook; mv .nbook gone; echo end',
    });
    const text = textOf(r);
    expect(text).toContain("Read-only file system");
    expect(text).toContain("listing:[]");
    expect(text).not.toContain("control area");
    expect(existsSync(join(bed.project.root, ".nbook", "evil"))).toBe(false);
    expect(existsSync(join(bed.project.root, ".nbook", "agent", "profiles", "evil.yaml"))).toBe(false);
    expect(readFileSync(join(bed.project.root, ".nbook", "marker.txt"), "utf8")).toBe("control area\n");
  });

  it("refuses to run in a project whose .nbook is a symlink (it could not be hidden)", async () => {
    const linked = bed.ws.createProject("linked");
    renameSync(join(linked.root, ".nbook"), join(bed.dir, "moved-nbook"));
    symlinkSync(join(bed.dir, "moved-nbook"), join(linked.root, ".nbook"));
    const r = await bed.call("bash", { command: "touch ran.txt" }, { project: linked });
    expect(!r.ok && r.error.code).toBe("not_allowed");
    expect(existsSync(join(linked.root, "ran.txt"))).toBe(false);
  });

  it("cannot see or write another project, by relative or host path", async () => {
    const other = join(bed.ws.root, "other");
    const r = await bed.call("bash", {
      command: `cat ../other/notes.md; cat "${other}/notes.md"; echo pwned > "${other}/notes.md"; echo pwned > ../other/new.md; ls "${bed.ws.root}"; echo end`,
    });
    const text = textOf(r);
    expect(text).not.toContain("other's notes");
    expect(text).toContain("No such file or directory");
    expect(readFileSync(join(other, "notes.md"), "utf8")).toBe("other's notes\n");
    expect(existsSync(join(other, "new.md"))).toBe(false);
  });

  it("cannot read the workspace config or the agent database", async () => {
    const config = join(bed.ws.nbookDir, "config.json");
    expect(existsSync(config)).toBe(true);
    const r = await bed.call("bash", {
      command: `cat "${config}" || echo "no config"; cat ../.nbook/config.json || echo "no relative config"; ls -A "${bed.ws.nbookDir}" || echo "no control area"`,
    });
    const text = textOf(r);
    expect(text).toContain("no config");
    expect(text).toContain("no relative config");
    expect(text).toContain("no control area");
    expect(text).not.toContain("agent.sqlite");
  });

  it("has no network: a server on 127.0.0.1 started by this test is not reached", async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.end("hello from the host\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as { port: number };
      const r = await bed.call("bash", {
        command: `if exec 3<>/dev/tcp/127.0.0.1/${port}; then echo connected; head -1 <&3; else echo refused; fi`,
        timeout: 20,
      });
      expect(textOf(r)).toContain("refused");
      expect(textOf(r)).not.toContain("hello from the host");
      expect(connections).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("does not see this process: its /proc entry and environment are not there", async () => {
    const r = await bed.call("bash", {
      command: `test -e /proc/${process.pid}/environ && echo "parent visible" || echo "parent hidden"; cat /proc/[0-9]*/environ | tr '\\0' '\\n' | cut -d= -f1 | sort -u`,
    });
    const text = textOf(r);
    expect(text).toContain("parent hidden");
    for (const line of text.split("\n").slice(1).filter(Boolean)) {
      expect(line).toMatch(
        /^(PATH|HOME|NBOOK_PROJECT_ROOT|LANG|LANGUAGE|LC_\w+|TERM|TZ|PWD|SHLVL|_|\[Exit code \d+\])$/,
      );
    }
  });

  it("leaves no process behind: daemons started with setsid, nohup or a double fork are gone when the call returns", async () => {
    const tag = uniqueSleep();
    const r = await bed.call("bash", {
      command: `setsid sleep ${tag} & (setsid sleep ${tag} &); nohup sleep ${tag} >/dev/null 2>&1 & setsid bash -c 'sleep ${tag}' </dev/null >/dev/null 2>&1 & echo started`,
    });
    expect(textOf(r)).toContain("started");
    expect(killSurvivors(tag)).toEqual([]);
  });

  it("still kills a command at its timeout, sandbox and all", async () => {
    const tag = uniqueSleep();
    const r = await bed.call("bash", {
      command: `echo started; setsid sleep ${tag} & sleep ${tag}`,
      timeout: 0.5,
    });
    expect(!r.ok && r.error.code).toBe("timeout");
    expect(textOf(r)).toContain("started");
    expect(killSurvivors(tag)).toEqual([]);
  });
});

describe("read-only bash (the writer and retrieval profiles)", () => {
  it("sees the project read-only, and so needs no approval in plan mode", async () => {
    for (const profile of ["retrieval", "writer"]) {
      const r = await bed.call(
        "bash",
        { command: "grep -c Once chapter.md; echo x >> chapter.md; touch fresh.txt; echo end" },
        { profile, mode: "plan" },
      );
      expect(r.ok).toBe(true);
      expect(textOf(r)).toContain("1\n");
      expect(textOf(r)).toContain("Read-only file system");
      expect(readFileSync(abs("chapter.md"), "utf8")).toBe("Once.\n");
      expect(existsSync(abs("fresh.txt"))).toBe(false);
    }
  });
});

describe("without a sandbox (NBOOK_BASH_SANDBOX=off): every call asks", () => {
  const saved = process.env.NBOOK_BASH_SANDBOX;
  afterEach(() => {
    if (saved === undefined) delete process.env.NBOOK_BASH_SANDBOX;
    else process.env.NBOOK_BASH_SANDBOX = saved;
    vi.restoreAllMocks();
  });

  it("gates bash even in normal mode, says so once on stderr, and runs an approved call unconfined", async () => {
    process.env.NBOOK_BASH_SANDBOX = "off";
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    for (const mode of ["normal", "discuss", "plan"] as const) {
      const r = await bed.call("bash", { command: "touch unconfined.txt" }, { mode });
      expect(!r.ok && r.error.code).toBe("approval_required");
      expect(textOf(r)).toContain("NOT confined (NBOOK_BASH_SANDBOX=off)");
    }
    expect(existsSync(abs("unconfined.txt"))).toBe(false);
    const notices = stderr.mock.calls
      .map((c) => String(c[0]))
      .filter((l) => l.includes("bash cannot be confined"));
    expect(notices).toEqual([
      "nbook: bash cannot be confined (NBOOK_BASH_SANDBOX=off); every bash call will ask for approval.\n",
    ]);

    const ok = await bed.call(
      "bash",
      { command: 'touch unconfined.txt; echo "root=$NBOOK_PROJECT_ROOT"' },
      { approved: true },
    );
    expect(ok.ok).toBe(true);
    expect(textOf(ok)).toContain(`root=${bed.project.root}`);
    expect(ok.ok && ok.details).toMatchObject({ confined: false });
    expect(existsSync(abs("unconfined.txt"))).toBe(true);
  });

  it("a normal-mode agent run waits for approval of a bash call, and the approved call runs once", async () => {
    process.env.NBOOK_BASH_SANDBOX = "off";
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const fx = harnessFixture([
      { toolCalls: [{ name: "bash", input: { command: "echo once >> ran.txt" } }] },
      { text: "done" },
    ]);
    try {
      const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
      const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "Run it" });
      expect(r.status).toBe("waiting");
      expect(r.pending?.preview).toContain("NOT confined");
      expect(existsSync(join(fx.project.root, "ran.txt"))).toBe(false);
      const done = await fx.harness.settle(s.id, r.pending!.approvalId, { approved: true });
      expect(done.status).toBe("completed");
      expect(readFileSync(join(fx.project.root, "ran.txt"), "utf8")).toBe("once\n");
    } finally {
      fx.close();
    }
  });

  it("refuses read-only bash outright, since read-only cannot be enforced", async () => {
    process.env.NBOOK_BASH_SANDBOX = "off";
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const r = await bed.call("bash", { command: "ls" }, { profile: "retrieval", approved: true });
    expect(!r.ok && r.error.code).toBe("unsupported");
  });

  it("finds out by itself that bwrap is missing: the notice names it and a normal-mode call is stopped", () => {
    const bin = join(bed.dir, "bin-without-bwrap");
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, "node"));
    symlinkSync("/bin/bash", join(bin, "bash"));
    const r = runNbook(
      [
        "tool",
        "bash",
        "--workspace",
        bed.ws.root,
        "--project",
        "novel",
        "--json",
        "--input",
        '{"command":"echo ran"}',
      ],
      { cwd: bed.dir, env: { PATH: bin, NBOOK_BASH_SANDBOX: "" } },
    );
    expect(r.stderr).toContain("bash cannot be confined (bubblewrap (bwrap) is not installed)");
    expect(JSON.parse(r.stdout).error.code).toBe("approval_required");
  });

  it("from the command line: stopped with a one-line notice, run with --approve", () => {
    const args = ["tool", "bash", "--workspace", bed.ws.root, "--project", "novel", "--json", "--input"];
    const env = { NBOOK_BASH_SANDBOX: "off" };
    const stopped = runNbook([...args, JSON.stringify({ command: "echo ran" })], { cwd: bed.dir, env });
    expect(stopped.status).toBe(1);
    expect(JSON.parse(stopped.stdout).error.code).toBe("approval_required");
    expect(stopped.stderr.match(/bash cannot be confined/g)).toHaveLength(1);
    const approved = runNbook([...args, JSON.stringify({ command: "echo ran" }), "--approve"], {
      cwd: bed.dir,
      env,
    });
    expect(approved.status).toBe(0);
    expect(JSON.parse(approved.stdout).text).toContain("ran");
  });
});
