import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeTestBed, runNbook, type TestBed } from "../helpers.js";

let bed: TestBed;
afterEach(() => bed?.cleanup());

const CH = "manuscript/ch-03/index.md";
const BEFORE = "# Chapter 3\n\nMira climbs the bell tower.\n\nThe rope is frayed.\n\nShe rings it once.\n";
const AFTER =
  "# Chapter 3\n\nMira climbs the bell tower at dawn.\n\nThe rope is frayed.\n\nShe rings it twice.\n";

function nbook(args: string[]) {
  return runNbook([...args, "--project", "novel"], { cwd: join(bed.dir, "ws") });
}

function json<T>(args: string[]): T {
  const r = nbook([...args, "--json"]);
  expect(r.stderr).not.toMatch(/error/);
  return JSON.parse(r.stdout) as T;
}

/** A scripted agent (leader.default, normal mode) that rewrites chapter 3 with `write`. */
function agentRewrites(content: string): void {
  const script = join(bed.dir, "rewrite.json");
  writeFileSync(
    script,
    JSON.stringify({
      turns: [
        { text: "Rewriting chapter 3.", toolCalls: [{ name: "write", input: { path: CH, content } }] },
        { text: "Done." },
      ],
    }),
  );
  const r = nbook(["run", "Rewrite chapter 3", "--script", script]);
  expect(r.status).toBe(0);
}

interface Listed {
  id: string;
  actor: string;
  session: string | null;
  profile: string | null;
  tool: string | null;
  targets: string[];
}

describe("nbook history and nbook revert", () => {
  it("lists an agent's rewrite with its session and profile, and revert restores the exact bytes", () => {
    bed = makeTestBed();
    const file = join(bed.project.root, CH);
    mkdirSync(join(bed.project.root, "manuscript", "ch-03"), { recursive: true });
    writeFileSync(file, BEFORE);
    agentRewrites(AFTER);
    expect(readFileSync(file, "utf8")).toBe(AFTER);
    const list = json<Listed[]>(["history"]);
    expect(list[0]).toMatchObject({
      actor: "agent",
      session: "1",
      profile: "leader.default",
      tool: "write",
      targets: [CH],
    });
    // The chapter written by hand before the history began is in its starting point.
    expect(list[1]).toMatchObject({ actor: "outside", tool: "history" });
    expect(list[1].targets).toContain(CH);
    const text = nbook(["history"]).stdout;
    expect(text).toMatch(/leader\.default #1 .*manuscript\/ch-03\/index\.md/);
    const r = nbook(["revert", list[0].id]);
    expect(r.status).toBe(0);
    expect(readFileSync(file)).toEqual(Buffer.from(BEFORE));
    expect(json<Listed[]>(["history"])[0]).toMatchObject({ actor: "revert", targets: [CH] });
  });

  it("keeps a later hand edit to another paragraph, and refuses one to the same lines with conflict", () => {
    bed = makeTestBed();
    const file = join(bed.project.root, CH);
    mkdirSync(join(bed.project.root, "manuscript", "ch-03"), { recursive: true });
    writeFileSync(file, BEFORE);
    agentRewrites(AFTER);
    const agent = json<Listed[]>(["history"])[0];
    // Another paragraph edited by hand after the agent: it survives the revert.
    writeFileSync(file, AFTER.replace("The rope is frayed.", "The rope is frayed and wet."));
    expect(nbook(["revert", agent.id]).status).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(
      BEFORE.replace("The rope is frayed.", "The rope is frayed and wet."),
    );

    // The same lines edited by hand after a second rewrite: conflict, file unchanged.
    agentRewrites(AFTER);
    const second = json<Listed[]>(["history"])[0];
    const mine = AFTER.replace("She rings it twice.", "She rings it three times.");
    writeFileSync(file, mine);
    const r = nbook(["revert", second.id]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error \[conflict\]/);
    expect(r.stderr).toContain("She rings it three times.");
    expect(r.stderr).toContain("She rings it once.");
    expect(readFileSync(file, "utf8")).toBe(mine);
    const j = nbook(["revert", second.id, "--json"]);
    expect(JSON.parse(j.stdout)).toMatchObject({ ok: false, error: { code: "conflict" } });
  });

  it("reverts a revert, shows diffs, blames lines with words by author, and leaves the user's .git alone", () => {
    bed = makeTestBed();
    const root = bed.project.root;
    execFileSync("git", ["init", "-q"], { cwd: root });
    const head = readFileSync(join(root, ".git", "HEAD"), "utf8");
    const file = join(root, CH);
    mkdirSync(join(root, "manuscript", "ch-03"), { recursive: true });
    writeFileSync(file, BEFORE);
    agentRewrites(AFTER);
    const agent = json<Listed[]>(["history"])[0];
    const shown = json<{ diff: string }>(["history", "show", agent.id]);
    expect(shown.diff).toContain("-She rings it once.");
    expect(shown.diff).toContain("+She rings it twice.");
    const blame = json<{
      lines: { author: { actor: string; profile: string | null } }[];
      words: Record<string, number>;
    }>(["history", "blame", CH]);
    expect(blame.lines[2].author).toMatchObject({ actor: "agent", profile: "leader.default" });
    expect(blame.lines[4].author.actor).toBe("outside");
    expect(blame.words.agents).toBe(countIn("Mira climbs the bell tower at dawn. She rings it twice."));
    expect(nbook(["revert", agent.id]).status).toBe(0);
    const revert = json<Listed[]>(["history"])[0];
    expect(nbook(["revert", revert.id]).status).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(AFTER);
    expect(json<Listed[]>(["history"])[0]).toMatchObject({ actor: "revert" });
    // The user's own repository saw nothing: no commit, nothing staged.
    expect(readFileSync(join(root, ".git", "HEAD"), "utf8")).toBe(head);
    expect(execFileSync("git", ["rev-list", "--all"], { cwd: root, encoding: "utf8" })).toBe("");
    expect(execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })).toBe("");
  });

  it("says what is wrong with unknown ids and bad times", () => {
    bed = makeTestBed();
    const r = nbook(["revert", "c0000000000zzzzzz"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/error \[not_found\]: No change with id "c0000000000zzzzzz"/);
    expect(nbook(["history", "show", "nope"]).stderr).toMatch(/not_found/);
    expect(nbook(["history", "--since", "yesterday"]).stderr).toMatch(
      /invalid_input.*--since must be a date/,
    );
    expect(nbook(["revert"]).stderr).toMatch(/invalid_input.*Name the changes to revert/);
  });
});

function countIn(text: string): number {
  return text.split(/\s+/).filter((w) => /\w/.test(w)).length;
}
