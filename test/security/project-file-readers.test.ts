import { execFile, execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { projectInstructions } from "../../src/profiles/project-instructions.js";
import { SAMPLE_DIR } from "../../src/research/file-source.js";
import { makeTestBed, NBOOK_BIN, type TestBed } from "../helpers.js";

/**
 * NeuroBook's own readers of project files (calendar, schema, project.yaml, research snapshots),
 * faced with what an agent's confined bash can make inside the project: FIFOs, links to devices or
 * to host files, huge files. Each command runs as its own process with a deadline, so a reader that
 * blocks fails its test instead of freezing the suite.
 */

const DEADLINE_MS = 15_000;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function nbook(bed: TestBed, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      NBOOK_BIN,
      [...args, "--workspace", bed.ws.root, "--project", bed.project.name],
      { cwd: bed.dir, timeout: DEADLINE_MS, killSignal: "SIGKILL", maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const e = err as (NodeJS.ErrnoException & { killed?: boolean }) | null;
        resolve({
          status: e ? (typeof e.code === "number" ? e.code : null) : 0,
          stdout,
          stderr,
          timedOut: e?.killed === true,
        });
      },
    );
  });
}

/** `nbook project list` takes no --project. */
function projectList(bed: TestBed): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      NBOOK_BIN,
      ["project", "list", "--workspace", bed.ws.root],
      { cwd: bed.dir, timeout: DEADLINE_MS, killSignal: "SIGKILL" },
      (err, stdout, stderr) => {
        const e = err as (NodeJS.ErrnoException & { killed?: boolean }) | null;
        resolve({
          status: e ? (typeof e.code === "number" ? e.code : null) : 0,
          stdout,
          stderr,
          timedOut: e?.killed === true,
        });
      },
    );
  });
}

let bed: TestBed;
let file: (rel: string) => string;
beforeEach(() => {
  bed = makeTestBed();
  file = (rel) => join(bed.project.root, ...rel.split("/"));
});
afterEach(() => bed.cleanup());

function fifo(rel: string): void {
  rmSync(file(rel), { force: true });
  execFileSync("mkfifo", [file(rel)]);
}

function replaceWithLink(rel: string, target: string): void {
  rmSync(file(rel), { force: true });
  symlinkSync(target, file(rel));
}

const SCHEMA_SCRIPT = JSON.stringify({ code: "return world.schema.describe()" });

describe("a FIFO where NeuroBook reads a project file", () => {
  it("world-engine/calendar.yaml: `nbook world subjects` answers at once with a clear error, get_story_tree without it", async () => {
    fifo("world-engine/calendar.yaml");
    const subjects = await nbook(bed, ["world", "subjects"]);
    expect(subjects.timedOut).toBe(false);
    expect(subjects.status).not.toBe(0);
    expect(subjects.stderr).toContain("world-engine/calendar.yaml is not a regular file");
    // The story tree converts no time: a broken calendar reports itself only where one is converted.
    const tree = await nbook(bed, ["tool", "get_story_tree", "--json"]);
    expect(tree.timedOut).toBe(false);
    expect(JSON.parse(tree.stdout)).toMatchObject({ ok: true });
    const time = await nbook(bed, [
      "tool",
      "execute_world",
      "--input",
      JSON.stringify({ code: 'return world.time.parse("1-01-01")' }),
      "--json",
    ]);
    expect(time.timedOut).toBe(false);
    expect(JSON.parse(time.stdout)).toMatchObject({
      ok: false,
      error: {
        code: "unsupported",
        message: expect.stringContaining("world-engine/calendar.yaml is not a regular file"),
      },
    });
  });

  it("project.yaml: `nbook project list` answers at once and lists the project as broken", async () => {
    fifo("project.yaml");
    const list = await projectList(bed);
    expect(list.timedOut).toBe(false);
    expect(list.status).toBe(0);
    expect(list.stdout).toMatch(/^novel\t\(broken project\.yaml: project\.yaml is not a regular file\)/m);
    const tree = await nbook(bed, ["tool", "get_story_tree", "--json"]);
    expect(tree.timedOut).toBe(false);
    expect(JSON.parse(tree.stdout)).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("project.yaml is not a regular file") },
    });
  });

  it("project.yaml: `nbook serve` answers /api/projects and every later request, and stops on SIGTERM", async () => {
    fifo("project.yaml");
    const child = spawn(NBOOK_BIN, ["serve", "--workspace", bed.ws.root, "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const deadline = AbortSignal.timeout(DEADLINE_MS);
    try {
      let out = "";
      const link = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /Open (http:\/\/127\.0\.0\.1:\d+\/login\?token=[A-Za-z0-9_-]+)/.exec(out);
          if (m) resolve(m[1]);
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const login = await fetch(link, { redirect: "manual", signal: deadline });
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
      const base = new URL(link).origin;
      const projects = await fetch(`${base}/api/projects`, { headers: { cookie }, signal: deadline });
      expect(projects.status).toBe(200);
      const body = (await projects.json()) as { projects: { name: string; title: string }[] };
      expect(body.projects).toEqual([
        expect.objectContaining({ name: "novel", title: expect.stringContaining("not a regular file") }),
      ]);
      const again = await fetch(`${base}/api/projects`, { headers: { cookie }, signal: deadline });
      expect(again.status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  it("world-engine/schema.yaml: world.schema.describe() answers at once with a clear error", async () => {
    fifo("world-engine/schema.yaml");
    const r = await nbook(bed, [
      "tool",
      "execute_world",
      "--profile",
      "writer",
      "--input",
      SCHEMA_SCRIPT,
      "--json",
    ]);
    expect(r.timedOut).toBe(false);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      error: {
        code: "unsupported",
        message: expect.stringContaining("world-engine/schema.yaml is not a regular file"),
      },
    });
  });

  it("a research snapshot file: novel_rankings answers at once with a clear error", async () => {
    cpSync(SAMPLE_DIR, file("research"), { recursive: true });
    mkdirSync(join(bed.project.root, ".nbook"), { recursive: true });
    writeFileSync(
      join(bed.project.root, ".nbook", "config.json"),
      JSON.stringify({ research: { dir: "research" } }),
    );
    fifo("research/qidian/rankings/yuepiao/2025-06-10.json");
    const r = await nbook(bed, [
      "tool",
      "novel_rankings",
      "--mode",
      "discuss",
      "--input",
      JSON.stringify({ platform: "qidian", board: "yuepiao" }),
      "--json",
    ]);
    expect(r.timedOut).toBe(false);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      error: {
        code: "unsupported",
        message: expect.stringContaining("qidian/rankings/yuepiao/2025-06-10.json is not a regular file"),
      },
    });
  });
});

describe("a link or an oversized file where NeuroBook reads a project file", () => {
  it("calendar.yaml linked to /dev/zero is refused at once instead of read without end", async () => {
    replaceWithLink("world-engine/calendar.yaml", "/dev/zero");
    const r = await nbook(bed, ["world", "subjects"]);
    expect(r.timedOut).toBe(false);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("world-engine/calendar.yaml");
    expect(r.stderr).toMatch(/is not a regular file|leads outside the project/);
  });

  it("a calendar.yaml larger than the cap is refused, naming the file and the cap", async () => {
    truncateSync(file("world-engine/calendar.yaml"), 64 * 1024 * 1024);
    const r = await nbook(bed, ["world", "subjects"]);
    expect(r.timedOut).toBe(false);
    expect(r.stderr).toMatch(/world-engine\/calendar\.yaml is larger than \d+ (KiB|MiB)/);
  });

  it("schema.yaml linked to a host file is refused, and the host file's text is never shown", async () => {
    const host = join(bed.dir, "host-schema.yaml");
    writeFileSync(host, "types:\n  hostsecretxyz:\n    description: HOST-SECRET-TEXT\n    attrs: {}\n");
    replaceWithLink("world-engine/schema.yaml", host);
    const r = await nbook(bed, [
      "tool",
      "execute_world",
      "--profile",
      "writer",
      "--input",
      SCHEMA_SCRIPT,
      "--json",
    ]);
    expect(r.timedOut).toBe(false);
    expect(`${r.stdout}${r.stderr}`).not.toContain("HOST-SECRET-TEXT");
    expect(`${r.stdout}${r.stderr}`).not.toContain("hostsecretxyz");
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      error: {
        code: "path_escape",
        message: expect.stringContaining("world-engine/schema.yaml leads outside the project"),
      },
    });
  });

  it("an AGENTS.md larger than the cap is not read whole: the prompt section says why", () => {
    truncateSync(file("AGENTS.md"), 64 * 1024 * 1024);
    expect(projectInstructions(bed.project)).toBe(
      "## Project instructions (AGENTS.md, from the author: follow them)\n[AGENTS.md was not read: AGENTS.md is larger than 4 MiB, the most read of it]",
    );
  });

  it("the file tools refuse a file over their cap instead of reading it whole", async () => {
    writeFileSync(file("big.md"), "");
    truncateSync(file("big.md"), 100 * 1024 * 1024);
    const r = await bed.call("read", { path: "big.md" });
    expect(r).toMatchObject({
      ok: false,
      error: { code: "limit_exceeded", message: "big.md is larger than 64 MiB, the most read of it" },
    });
  });
});
