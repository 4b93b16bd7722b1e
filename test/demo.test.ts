import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliRun, runNbookInProcess } from "./helpers.js";

let dir: string;
let demo: CliRun;

/** nbook in this process (see runNbookInProcess), in the test folder. */
function nbook(args: string[]): Promise<CliRun> {
  return runNbookInProcess(args, { cwd: dir });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nbook-demo-"));
  demo = await nbook(["demo", "--dir", "D"]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("nbook demo: the writing chain, offline", () => {
  it("finishes with exit 0 and leaves the plan and the chapter the writer drafted", () => {
    expect(demo.stderr).toBe("");
    expect(demo.status).toBe(0);
    expect(existsSync(join(dir, "D/tide-bell/.agent/plan/chapter-03.md"))).toBe(true);
    const chapter = readFileSync(join(dir, "D/tide-bell/manuscript/03-the-bell-road/index.md"), "utf8");
    expect(chapter).toContain("# Chapter 3 — The Bell Road");
    // The writer's revision, made after its first draft, is in the file.
    expect(chapter).toContain("faint as a fingernail against a cup");
  });

  it("shows the chain: plan mode, the approved switch, the writer created, invoked, reading and drafting, its result back", () => {
    const out = demo.stdout;
    const steps = [
      "leader › I'll plan chapter 3 first",
      "[demo] The user approves switch_mode",
      "⇄ mode: plan → normal",
      "create_agent",
      "↳ invoke_agent",
      // The writer's lines are indented under the leader's call and name the writer's session.
      "    writer #2 › Reading my brief",
      "get_chapter_writer_brief",
      "execute_world",
      "write manuscript/03-the-bell-road/index.md",
      "report_result",
      "leader › The writer is done.",
      'leader › Chapter 3, "The Bell Road", is drafted',
    ];
    let at = 0;
    for (const step of steps) {
      const found = out.indexOf(step, at);
      expect(found, `"${step}" after position ${at} in:\n${out}`).toBeGreaterThanOrEqual(0);
      at = found + step.length;
    }
    expect(out).toMatch(/Sessions: 1 leader\.default → 2 writer/);
    expect(out).toContain("nbook sessions list --tree --workspace D");
  });

  it("the writer ran as the leader's child, with its own tools, in normal mode", async () => {
    const show = await nbook(["sessions", "show", "2", "--workspace", "D"]);
    expect(show.status).toBe(0);
    expect(show.stdout).toContain("writer");
    expect(show.stdout).toContain("get_chapter_writer_brief");
    expect(show.stdout).toContain("report_result");
    const leader = await nbook(["sessions", "show", "1", "--workspace", "D"]);
    expect(leader.stdout).toContain("03-the-bell-road");
    expect(leader.stdout).toContain("switch_mode");
    expect(leader.stdout).toContain("invoke_agent");
    expect(leader.stdout).toContain("Drafted chapter 3");
  });

  it("sessions list --tree shows leader → writer", async () => {
    const tree = await nbook(["sessions", "list", "--tree", "--workspace", "D"]);
    expect(tree.status).toBe(0);
    const lines = tree.stdout.split("\n");
    const leader = lines.findIndex((l) => /\b1\b.*leader\.default/.test(l));
    const writer = lines.findIndex((l) => /\b2\b.*writer/.test(l));
    expect(leader, tree.stdout).toBeGreaterThanOrEqual(0);
    // The writer is the leader's child: the next line, drawn under it.
    expect(writer, tree.stdout).toBe(leader + 1);
    const indentOf = (l: string) => (l.match(/^[\s│├└─]*/)?.[0] ?? "").length;
    expect(indentOf(lines[writer] ?? ""), tree.stdout).toBeGreaterThan(indentOf(lines[leader] ?? ""));
  });
});
