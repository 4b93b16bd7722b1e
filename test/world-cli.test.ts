import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NBOOK_BIN, runNbookInProcess, threadCpuTicks } from "./helpers.js";

let home: string;
let ws: string;

function nbook(args: string[]) {
  return runNbookInProcess(args, { cwd: home, env: { NBOOK_WORKSPACE: ws } });
}

const script = (name: string, code: string) => {
  const p = join(home, name);
  writeFileSync(p, code);
  return p;
};

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "nbook-world-cli-"));
  ws = join(home, "ws");
  expect((await nbook(["init", ws])).status).toBe(0);
  expect((await nbook(["project", "create", "demo"])).status).toBe(0);
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("nbook world", () => {
  it("exec writes through execute_world; --readonly has no write functions", async () => {
    const write = script(
      "arrive.js",
      `const t = world.time.parse("1024-03-01 08:00:00 AD");
       world.slice.write({ time: t, title: "arrival", patches: [
         { subjectId: "hero", type: "character", name: "Aria", path: "/hp", op: "replace", value: 80 },
         { subjectId: "inn", type: "location", name: "Inn", path: "/name", op: "replace", value: "The Inn" },
         { subjectId: "hero", path: "/location", op: "replace", value: "subject://inn" },
       ]});
       return "wrote " + world.time.format(t);`,
    );
    const dry = await nbook(["world", "exec", write, "--project", "demo", "--mode", "discuss"]);
    expect(dry.status).toBe(1);
    expect(dry.stderr).toContain("error [approval_required]");
    expect(dry.stderr).toContain('at 1024-03-01 08:00:00 AD (t=32287881600) "arrival"');
    const r = await nbook(["world", "exec", write, "--project", "demo"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("wrote 1024-03-01 08:00:00 AD\n");

    const ro = await nbook([
      "world",
      "exec",
      script("ro.js", "return typeof world.slice.write + ' ' + world.subject.get('hero').hp"),
      "--readonly",
      "--project",
      "demo",
    ]);
    expect(ro.stdout).toBe("undefined 80\n");
  });

  it("state, history, slices, subjects and issues speak calendar time", async () => {
    const state = await nbook(["world", "state", "hero", "--project", "demo", "--json"]);
    expect(JSON.parse(state.stdout)).toMatchObject({
      id: "hero",
      type: "character",
      at: "latest",
      state: { hp: 80, location: "subject://inn" },
    });
    const before = await nbook([
      "world",
      "state",
      "hero",
      "--at",
      "1000-01-01 00:00:00 AD",
      "--project",
      "demo",
    ]);
    expect(before.stdout).toBe("hero (character, Aria) at 1000-01-01 00:00:00 AD\n{}\n");

    const history = await nbook(["world", "history", "hero", "--path", "/hp", "--project", "demo"]);
    expect(history.stdout.trim().split("\n")).toHaveLength(2);
    expect(history.stdout).toMatch(/^1024-03-01 08:00:00 AD {2}\S+ {2}replace \/hp 100\n/);

    const slices = await nbook([
      "world",
      "slices",
      "--from",
      "1024-01-01 00:00:00 AD",
      "--project",
      "demo",
      "--json",
    ]);
    expect(JSON.parse(slices.stdout)).toMatchObject([{ title: "arrival", time: "1024-03-01 08:00:00 AD" }]);
    const none = await nbook(["world", "slices", "--to", "1000-01-01 00:00:00 AD", "--project", "demo"]);
    expect(none.stdout).toBe("(no slices)\n");

    const subjects = await nbook(["world", "subjects", "--type", "location", "--project", "demo"]);
    expect(subjects.stdout.trim()).toMatch(/^inn\s+location\s+Inn$/);
    expect((await nbook(["world", "issues", "--project", "demo"])).stdout).toBe("(no issues)\n");

    const bad = await nbook(["world", "slices", "--from", "yesterday", "--project", "demo"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("does not match the calendar format");
  });

  it("issues name their calendar time, in text and in JSON", async () => {
    const broken = script(
      "break.js",
      `const base = world.slice.write({ time: world.time.parse("1024-04-01 00:00:00 AD"), patches: [
         { subjectId: "hero", path: "/gold", op: "replace", value: 10 }] });
       world.slice.write({ time: world.time.parse("1024-05-01 00:00:00 AD"), patches: [
         { subjectId: "hero", path: "/gold", op: "increment", value: 5 }] });
       return world.slice.delete(base.sliceId).issues.map(i => i.label).join(",");`,
    );
    expect((await nbook(["world", "exec", broken, "--project", "demo"])).stdout).toMatch(/^E1\n/);
    const text = (await nbook(["world", "issues", "--project", "demo"])).stdout;
    expect(text).toMatch(/^E1 error {2}hero\/gold at 1024-05-01 00:00:00 AD \(slice \S+\): /);
    const json = JSON.parse((await nbook(["world", "issues", "--project", "demo", "--json"])).stdout);
    expect(json).toMatchObject([{ label: "E1", attr: "/gold", time: "1024-05-01 00:00:00 AD" }]);
  });

  it("schema lists the types and the calendar", async () => {
    const r = await nbook(["world", "schema", "--project", "demo", "--json"]);
    const out = JSON.parse(r.stdout);
    expect(out.schema.types.map((t: { type: string }) => t.type)).toEqual(
      expect.arrayContaining(["world", "character", "location", "faction", "item"]),
    );
    expect(out.calendar.kind).toBe("gregorian");
  });
});

describe("Ctrl-C during a runaway script", () => {
  it("nbook run aborts the run: the script's worker is killed, long before its 15 s limit", async () => {
    const turns = script(
      "bomb.yaml",
      [
        "turns:",
        "  - toolCalls: [{ name: execute_world, input: { code: \"return 'warm'\" } }]",
        "  - text: Lighting the fuse.",
        "    toolCalls:",
        "      - name: execute_world",
        "        input: { code: 'return Array.prototype.indexOf.call({ length: 2 ** 40 }, 1)' }",
        "  - text: never reached",
        "",
      ].join("\n"),
    );
    const child = spawn(NBOOK_BIN, ["run", "go", "--script", turns, "--project", "demo"], {
      cwd: home,
      env: { ...process.env, NBOOK_WORKSPACE: ws },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      while (!out.includes("Lighting the fuse.")) {
        if (child.exitCode !== null) throw new Error(`nbook run ended early:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // Ctrl-C once the bomb runs: one of the process's threads has spun for 300 ms of CPU since.
      const pid = child.pid ?? 0;
      const before = threadCpuTicks(pid);
      const spinning = () =>
        [...threadCpuTicks(pid)].some(([tid, ticks]) => ticks - (before.get(tid) ?? 0) >= 30);
      while (!spinning()) {
        if (child.exitCode !== null) throw new Error(`nbook run ended early:\n${out}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      child.kill("SIGINT");
      const limit = new Promise<"still running">((r) => setTimeout(() => r("still running"), 8000));
      expect(await Promise.race([exited, limit])).not.toBe("still running");
      expect(out).toContain("aborting the run");
      expect(out).toContain("status aborted");
      expect(out).not.toContain("never reached");
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);
});
