import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliRun, NBOOK_BIN, runNbookInProcess } from "../helpers.js";

const BRAINSTORM_SCRIPT = fileURLToPath(new URL("../../examples/brainstorm-script.yaml", import.meta.url));

let dir: string;
/** A folder like a clone of NeuroBook (a Git work tree) that the README runs `./bin/nbook demo` in. */
let clone: string;
/** The user's home folder for these runs. */
let home: string;
/** PATH without any nbook on it. */
let bare: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "nbook-tour-"));
  clone = join(dir, "neurobook");
  home = join(dir, "home");
  mkdirSync(join(clone, ".git"), { recursive: true });
  mkdirSync(home);
  bare = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((d) => d && !existsSync(join(d, "nbook")))
    .join(delimiter);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The commands a demo printed under a heading, as typed (indented lines, numbering stripped). */
function printedCommands(out: string, heading: string): string[] {
  const after = out
    .slice(out.indexOf(heading) + heading.length)
    .split("\n")
    .slice(1);
  const lines: string[] = [];
  for (const l of after) {
    if (!l.startsWith("  ")) break;
    lines.push(l.trim().replace(/^\d+\.\s+/, ""));
  }
  return lines;
}

/** Run a printed command line in a shell, as the user would paste it. */
function shell(line: string, cwd: string, path = bare): CliRun {
  const r = spawnSync("sh", ["-c", line], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, HOME: home, PATH: path },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("nbook demo as the README runs it, from a clone", () => {
  let demo: CliRun;
  beforeAll(async () => {
    demo = await runNbookInProcess(["demo"], { cwd: clone, env: { HOME: home, PATH: bare } });
  }, 60_000);

  it("makes the demo workspace in the home folder, not in the clone", () => {
    expect(demo.stderr).toBe("");
    expect(demo.status).toBe(0);
    expect(readdirSync(clone)).toEqual([".git"]);
    expect(existsSync(join(home, "nbook-demo", ".nbook"))).toBe(true);
    expect(demo.stdout).toContain(`workspace: ${join(home, "nbook-demo")}`);
  });

  it("prints commands that run as printed where nbook is not on PATH", () => {
    const look = printedCommands(demo.stdout, "Look at what happened:");
    expect(look.length).toBeGreaterThanOrEqual(3);
    const offline = printedCommands(demo.stdout, "Try a workflow offline:");
    const models = printedCommands(demo.stdout, "Continue with a real model:").filter((l) =>
      l.includes(" models list"),
    );
    expect(models).toHaveLength(1);
    for (const line of [...look, ...offline, ...models]) {
      expect(line.startsWith("nbook ")).toBe(false);
      const r = shell(line, clone);
      // (a workflow run reports its progress on stderr)
      expect(r.stderr, line).not.toMatch(/error|not found/i);
      expect(r.status, `${line}\n${r.stdout}`).toBe(0);
    }
    const brainstorm = shell(offline[0] ?? "false", clone);
    expect(brainstorm.stdout).toContain("completed");
    expect(brainstorm.stdout).toContain('"recommendation"');
  }, 60_000);

  it("prints plain nbook commands when the nbook on PATH is this one", async () => {
    const bin = join(dir, "bin");
    mkdirSync(bin);
    symlinkSync(NBOOK_BIN, join(bin, "nbook"));
    const path = `${bin}${delimiter}${bare}`;
    const again = await runNbookInProcess(["demo"], { cwd: clone, env: { HOME: home, PATH: path } });
    expect(again.status).toBe(0);
    // A second demo without --dir takes the next free name.
    expect(again.stdout).toContain(`workspace: ${join(home, "nbook-demo-2")}`);
    const look = printedCommands(again.stdout, "Look at what happened:");
    expect(look[0]).toBe("nbook sessions list --tree --workspace ~/nbook-demo-2");
    expect(shell(look[0] ?? "false", clone, path).status).toBe(0);
  }, 60_000);

  it("run again with the same --dir, says what there is and what to do instead of only 'already exists'", async () => {
    const first = await runNbookInProcess(["demo", "--dir", "D"], {
      cwd: dir,
      env: { HOME: home, PATH: bare },
    });
    expect(first.status).toBe(0);
    const second = await runNbookInProcess(["demo", "--dir", "D"], {
      cwd: dir,
      env: { HOME: home, PATH: bare },
    });
    expect(second.status).toBe(1);
    expect(second.stderr).toContain("D already holds the demo");
    expect(second.stderr).toMatch(/sessions list --tree --workspace D\b/);
    expect(second.stderr).toContain("demo --dir D-2");
    // Nothing of the first demo changed: its two sessions are all there are.
    const list = shell(`${NBOOK_BIN} sessions list --workspace D --json`, dir);
    expect(JSON.parse(list.stdout)).toHaveLength(2);
  }, 60_000);

  it("refuses a --dir folder that has other files, touching nothing", async () => {
    const mine = join(dir, "my-novel");
    mkdirSync(mine);
    writeFileSync(join(mine, "chapter.md"), "Mine.\n");
    const r = await runNbookInProcess(["demo", "--dir", mine], { cwd: dir, env: { HOME: home, PATH: bare } });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("is not empty");
    expect(readdirSync(mine)).toEqual(["chapter.md"]);
  });
});

describe("the README tour's workflow", () => {
  let ws: string;
  beforeAll(async () => {
    ws = join(dir, "novels");
    await runNbookInProcess(["init", ws], { cwd: dir });
    await runNbookInProcess(["project", "create", "demo", "--sample"], { cwd: ws });
  }, 60_000);

  it("runs offline with the shipped script", async () => {
    const r = await runNbookInProcess(
      ["workflows", "run", "brainstorm", "--args", '{"topic":"the bell"}', "--script", BRAINSTORM_SCRIPT],
      { cwd: join(ws, "demo") },
    );
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("completed");
    expect(r.stdout).toContain("Usage: 5 agent invocation(s)");
  });

  it("without a model says so once, never 'Error: Error:'", async () => {
    const r = await runNbookInProcess(["workflows", "run", "brainstorm", "--args", '{"topic":"the bell"}'], {
      cwd: join(ws, "demo"),
    });
    expect(r.status).toBe(1);
    const all = r.stdout + r.stderr;
    expect(all).toContain("Error (config_error): No model configured");
    expect(all).not.toMatch(/Error\b[^\n]*\bError: /);
  });
});
