import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NBOOK_BIN, runNbook, runNbookInProcess } from "../helpers.js";

let home: string;
let ws: string;

type NbookOptions = { cwd?: string; env?: Record<string, string> };

/** nbook in this process (see runNbookInProcess), outside any workspace unless told otherwise. */
function nbook(args: string[], opts: NbookOptions = {}) {
  return runNbookInProcess(args, { cwd: opts.cwd ?? home, env: { NBOOK_WORKSPACE: "", ...opts.env } });
}

/** nbook as a process of the compiled build: where the exit status itself is what is tested. */
function spawned(args: string[], opts: NbookOptions = {}) {
  return runNbook(args, { cwd: opts.cwd ?? home, env: { NBOOK_WORKSPACE: "", ...opts.env } });
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "nbook-cli-"));
  ws = join(home, "novels");
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("nbook CLI", () => {
  it("walks a new user through init, project create --sample and a read from inside the project", async () => {
    expect((await nbook(["init", ws])).status).toBe(0);
    expect(JSON.parse(readFileSync(join(ws, ".nbook", "config.json"), "utf8"))).toMatchObject({
      providers: {},
    });
    for (const d of ["profiles", "skills", "workflows"]) {
      expect(statSync(join(ws, ".nbook", "agent", d)).isDirectory()).toBe(true);
    }
    const created = await nbook(["project", "create", "demo", "--sample"], { cwd: ws });
    expect(created.status).toBe(0);
    expect(created.stdout).toContain("The Tide-Bell Keeper");
    const r = await nbook(["tool", "read", "--input", '{"path":"lorebook"}'], {
      cwd: join(ws, "demo", "manuscript"),
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("characters/");
    expect(r.stdout).toContain("index.md");
  });

  it("creates a project with the full layout, title and language, and lists projects", async () => {
    const r = await nbook([
      "project",
      "create",
      "shu",
      "--title",
      "书",
      "--language",
      "zh",
      "--workspace",
      ws,
    ]);
    expect(r.status).toBe(0);
    for (const p of [
      "project.yaml",
      "AGENTS.md",
      "lorebook",
      "manuscript",
      "world-engine",
      "simulation/subjects",
      ".agent/plan",
      ".nbook",
    ]) {
      expect(() => readFileSync(join(ws, "shu", p))).not.toThrow(/ENOENT/);
    }
    expect(readFileSync(join(ws, "shu", "project.yaml"), "utf8")).toContain("language: zh");
    const list = await nbook(["project", "list", "--json"], { env: { NBOOK_WORKSPACE: ws } });
    expect(JSON.parse(list.stdout).map((p: { name: string }) => p.name)).toEqual(["demo", "shu"]);
    const bad = await nbook(["project", "create", "../evil", "--workspace", ws]);
    expect(bad.status).toBe(2);
  });

  it("prints exactly one JSON object with --json and exits 0/1/2 (as a process of the compiled build)", async () => {
    const ok = spawned(
      ["tool", "write", "--json", "--project", "demo", "--input", '{"path":"notes/a.md","content":"hi\\n"}'],
      {
        cwd: ws,
      },
    );
    expect(ok.status).toBe(0);
    const okJson = JSON.parse(ok.stdout);
    expect(okJson).toMatchObject({ ok: true, details: { path: "notes/a.md", bytes: 3 } });
    expect(ok.stdout.trim().split("\n")).toHaveLength(1);

    const err = spawned(
      ["tool", "read", "--json", "--project", "demo", "--input", '{"path":"../../etc/passwd"}'],
      { cwd: ws },
    );
    expect(err.status).toBe(1);
    expect(JSON.parse(err.stdout)).toMatchObject({ ok: false, error: { code: "path_escape" } });

    const invalid = await nbook(
      ["tool", "edit", "--json", "--project", "demo", "--input", '{"path":"notes/a.md","edits":[]}'],
      {
        cwd: ws,
      },
    );
    expect(invalid.status).toBe(1);
    expect(JSON.parse(invalid.stdout).error.fields[0].pointer).toBe("/edits");

    const usage = spawned(["tool", "read", "--json", "--input", "{not json"], { cwd: ws });
    expect(usage.status).toBe(2);
    expect(
      (await nbook(["tool", "read", "--mode", "sideways", "--project", "demo"], { cwd: ws })).status,
    ).toBe(2);
  });

  it("reads input from a file, applies a profile and a mode, and approves one call", async () => {
    const input = join(home, "input.json");
    writeFileSync(input, JSON.stringify({ path: "notes/b.md", content: "b\n" }));
    const common = ["--project", "demo", "--json", "--input", `@${input}`];
    const denied = await nbook(["tool", "write", ...common, "--profile", "retrieval"], { cwd: ws });
    expect(JSON.parse(denied.stdout).error.code).toBe("not_allowed");
    const gated = await nbook(["tool", "write", ...common, "--mode", "discuss"], { cwd: ws });
    const g = JSON.parse(gated.stdout);
    expect(g.error.code).toBe("approval_required");
    expect(g.error.details.preview.text).toContain("+b");
    expect(() => readFileSync(join(ws, "demo", "notes", "b.md"))).toThrow();
    const approved = await nbook(["tool", "write", ...common, "--mode", "discuss", "--approve"], { cwd: ws });
    expect(JSON.parse(approved.stdout).ok).toBe(true);
    expect(readFileSync(join(ws, "demo", "notes", "b.md"), "utf8")).toBe("b\n");
  });

  it("tells a terminal user how to approve a stopped write, and which profiles exist", async () => {
    const args = ["tool", "write", "--project", "demo", "--input", '{"path":"notes/c.md","content":"c"}'];
    const stopped = await nbook([...args, "--mode", "discuss"], { cwd: ws });
    expect(stopped.status).toBe(1);
    expect(stopped.stderr).toContain("error [approval_required]");
    expect(stopped.stderr).toContain("Run the command again with --approve");
    expect(() => readFileSync(join(ws, "demo", "notes", "c.md"))).toThrow();
    const unknown = await nbook(
      ["tool", "read", "--project", "demo", "--profile", "wirter", "--input", "{}"],
      {
        cwd: ws,
      },
    );
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/Unknown profile: wirter\. Known profiles: .*\bwriter\b/);
  });

  it("lists tools with group and effect, and shows profiles", async () => {
    const tools = JSON.parse((await nbook(["tool", "--list", "--json"], { cwd: ws })).stdout) as {
      key: string;
      group: string;
      effect: string;
    }[];
    expect(tools.find((t) => t.key === "read")).toEqual({ key: "read", group: "files", effect: "read" });
    expect(tools.find((t) => t.key === "write")?.effect).toBe("write");
    const list = await nbook(["profile", "list"], { cwd: ws });
    expect(list.stdout).toContain("leader.default");
    const show = JSON.parse((await nbook(["profile", "show", "retrieval"], { cwd: ws })).stdout);
    expect(show).toMatchObject({ key: "retrieval", creationMode: "public" });
    expect(show.InitialSchema.required).toEqual(["prompt"]);
    expect((await nbook(["profile", "show", "nobody"], { cwd: ws })).status).toBe(2);
  });

  it("answers terminal mistakes as usage errors (exit 2) that say what to do", async () => {
    const missing = await nbook(["tool", "read", "--project", "demo", "--json", "--input", "@nowhere.json"], {
      cwd: ws,
    });
    expect(missing.status).toBe(2);
    expect(JSON.parse(missing.stdout).error.message).toContain("cannot read nowhere.json");
    const badOption = await nbook(["tool", "read", "--json", "--colour"], { cwd: ws });
    expect(badOption.status).toBe(2);
    expect(JSON.parse(badOption.stdout)).toMatchObject({ ok: false, error: { code: "invalid_input" } });
    expect(badOption.stdout.trim().split("\n")).toHaveLength(1);
    const unknown = await nbook(["tool", "teleport", "--project", "demo"], { cwd: ws });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("nbook tool --list");
    const projectAsWorkspace = await nbook(["project", "create", "inner", "--workspace", join(ws, "demo")]);
    expect(projectAsWorkspace.status).toBe(2);
    expect(projectAsWorkspace.stderr).toContain("is a project folder, not a workspace");
    expect(() => readFileSync(join(ws, "demo", "inner", "project.yaml"))).toThrow();
    const initInProject = await nbook(["init", join(ws, "demo")]);
    expect(initInProject.status).toBe(2);
    expect(() => readFileSync(join(ws, "demo", ".nbook", "config.json"))).toThrow();
  });

  it("lists tools outside any workspace and ends quietly when its reader goes away", async () => {
    const lost = mkdtempSync(join(tmpdir(), "nbook-lost-"));
    const list = await nbook(["tool", "--list"], { cwd: lost });
    expect(list.status).toBe(0);
    expect(list.stdout).toContain("apply_patch");
    // `true` exits without reading, so every write of the listing meets a closed pipe.
    const piped = spawnSync("bash", ["-c", `set -o pipefail; "${NBOOK_BIN}" tool --list | true`], {
      cwd: lost,
      encoding: "utf8",
    });
    expect(piped.status).toBe(0);
    expect(piped.stderr).not.toContain("EPIPE");
    rmSync(lost, { recursive: true, force: true });
  });

  it("reports a profile file that failed to load, naming the file", async () => {
    const file = join(ws, ".nbook", "agent", "profiles", "bad.yaml");
    writeFileSync(file, "key: bad\nname: Bad\ntools: [read, teleport]\nprompt: x\n");
    const r = await nbook(["profile", "list"], { cwd: ws });
    rmSync(file);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      "not loaded: .nbook/agent/profiles/bad.yaml: profile bad: unknown tool teleport",
    );
    expect(r.stdout).not.toMatch(/^bad /m);
  });

  it("marks a profile that overrides a built-in, and neither lists nor accepts one without tools; lists the researcher", async () => {
    const file = join(ws, "demo", ".nbook", "agent", "profiles", "writer.yaml");
    const idle = join(ws, "demo", ".nbook", "agent", "profiles", "idle.yaml");
    writeFileSync(file, "key: writer\nname: Project writer\ntools: [read, bash]\nprompt: x\n");
    writeFileSync(idle, "key: idle\nname: Idle\ntools: []\nprompt: x\n");
    const list = await nbook(["profile", "list", "--project", "demo"], { cwd: ws });
    const json = JSON.parse(
      (await nbook(["profile", "list", "--project", "demo", "--json"], { cwd: ws })).stdout,
    );
    const idleRefused = await nbook(
      ["tool", "read", "--project", "demo", "--profile", "idle", "--input", "{}"],
      {
        cwd: ws,
      },
    );
    rmSync(file);
    rmSync(idle);
    expect(list.stdout).toMatch(
      /^writer +public +project +2 tools {2}Project writer {2}\[overrides the built-in writer\]$/m,
    );
    expect(list.stdout).toMatch(/^retrieval .*tools {2}Retrieval$/m);
    expect(list.stderr).toContain("Profile idle is unavailable: its allowlist has no tools");
    expect(list.stdout).not.toMatch(/^idle /m);
    expect(idleRefused.status).toBe(2);
    expect(idleRefused.stderr).toContain("Unknown profile: idle");
    // The researcher has its tools now: it is listed, and keeps to its allowlist.
    expect(list.stdout).toMatch(/^researcher +public +builtin +\d+ tools {2}Researcher$/m);
    expect(json.profiles.find((p: { key: string }) => p.key === "writer").overridesBuiltin).toBe(true);
    const input = '{"path":"project.yaml"}';
    const refused = await nbook(
      ["tool", "read", "--project", "demo", "--profile", "researcher", "--input", input],
      {
        cwd: ws,
      },
    );
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("Tool read is not allowed for profile researcher");
  });

  it("finds the workspace by --workspace, NBOOK_WORKSPACE or the nearest ancestor, and explains when there is none", async () => {
    const deep = join(ws, "demo", "lorebook", "characters");
    expect((await nbook(["project", "list"], { cwd: deep })).stdout).toContain("demo");
    expect((await nbook(["project", "list"], { env: { NBOOK_WORKSPACE: ws } })).stdout).toContain("demo");
    const lost = mkdtempSync(join(tmpdir(), "nbook-lost-"));
    mkdirSync(join(lost, "x"));
    const r = await nbook(["project", "list"], { cwd: join(lost, "x") });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("nbook init");
    // Precedence: --workspace over NBOOK_WORKSPACE over the folder you are in.
    const flag = await nbook(["project", "list", "--workspace", ws], {
      env: { NBOOK_WORKSPACE: join(lost, "x") },
    });
    expect(flag.stdout).toContain("demo");
    expect((await nbook(["init", join(lost, "other")])).status).toBe(0);
    const env = await nbook(["project", "list"], { cwd: join(lost, "other"), env: { NBOOK_WORKSPACE: ws } });
    expect(env.stdout).toContain("demo");
    // --project over the project folder you are in.
    const other = await nbook(["tool", "read", "--project", "shu", "--input", '{"path":"project.yaml"}'], {
      cwd: join(ws, "demo", "lorebook"),
    });
    expect(other.stdout).toContain("language: zh");
    rmSync(lost, { recursive: true, force: true });
  });
});
