import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { visibleControls } from "../../src/core/text.js";
import { makeTestBed, runNbook, runNbookInProcess, type TestBed } from "../helpers.js";

/**
 * A discuss-mode agent's command that, printed raw, erases its own line (ESC [2K), returns to the
 * line's start (CR) and draws a harmless command over it: a terminal shows `$ ls lorebook`, and
 * approving it runs the rm.
 */
const RM = "rm -rf lorebook manuscript #\u001b[2K\r$ ls lorebook";
const RM_SHOWN = "rm -rf lorebook manuscript #\\x1b[2K\\x0d$ ls lorebook";

/** Raw C0 controls but tab and newline, DEL and C1 controls: none may reach the terminal. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed("novel", { sample: true });
});
afterEach(() => bed.cleanup());

function script(name: string, turns: unknown[]): string {
  const file = join(bed.dir, name);
  writeFileSync(file, JSON.stringify({ turns }));
  return file;
}

const rmTurns = [
  { text: "Let me look.", toolCalls: [{ name: "bash", input: { command: RM } }] },
  { text: "Not run." },
];

describe("text from models, tools and workflows reaches the terminal with its control characters visible", () => {
  it("shows C0 (but tab and newline), DEL and C1 controls as \\xNN, a lone CR too", () => {
    expect(visibleControls("a\tb\nc\rd\u001be\u0000f\u007fg\u009bh\u0085i")).toBe(
      "a\tb\nc\\x0dd\\x1be\\x00f\\x7fg\\x9bh\\x85i",
    );
    expect(visibleControls("plain — ünïcode 钟")).toBe("plain — ünïcode 钟");
    // A CRLF line ending draws over nothing: it is a newline (a file written on Windows reads as lines).
    expect(visibleControls("one\r\ntwo\r\r\n")).toBe("one\ntwo\\x0d\n");
  });

  it("nbook chat's approval prompt shows the whole rm, and answering n runs nothing", () => {
    const file = script("rm.json", rmTurns);
    const chat = runNbook(["chat", "--mode", "discuss", "--script", file], {
      cwd: bed.project.root,
      input: "list the lorebook\nn\n\n/exit\n",
    });
    expect(chat.stderr).not.toMatch(RAW_CONTROL);
    expect(chat.stdout).not.toMatch(RAW_CONTROL);
    expect(chat.stdout).toContain(RM_SHOWN);
    expect(chat.stdout).toContain("Approve bash? [y/n]");
    expect(chat.stdout).toContain("Not run.");
    expect(existsSync(join(bed.project.root, "lorebook"))).toBe(true);
  });

  it("nbook run and nbook sessions show print the pending command visibly", async () => {
    const file = script("rm-run.json", rmTurns);
    const run = await runNbookInProcess(["run", "list the lorebook", "--mode", "discuss", "--script", file], {
      cwd: bed.project.root,
    });
    expect(run.status).toBe(0);
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(run.stdout).toContain(RM_SHOWN);
    const id = /Session (\d+) is waiting/.exec(run.stdout)?.[1];
    expect(id).toBeDefined();
    const show = await runNbookInProcess(["sessions", "show", String(id)], { cwd: bed.project.root });
    expect(show.status).toBe(0);
    expect(show.stdout).not.toMatch(RAW_CONTROL);
    expect(show.stdout).toContain(RM_SHOWN);
    const json = await runNbookInProcess(["sessions", "show", String(id), "--json"], {
      cwd: bed.project.root,
    });
    // JSON keeps the value (it parses back to the raw command) with no raw control on the wire.
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain(JSON.stringify(RM).slice(1, -1));
  });

  it("a notice quoting a project's file name shows its controls visibly", async () => {
    const profiles = join(bed.project.root, ".nbook", "agent", "profiles");
    mkdirSync(profiles, { recursive: true });
    writeFileSync(
      join(profiles, "lead\u001b[2K\rer.yaml"),
      "key: leader.default\nname: Lead\ndescription: Mine.\ntools: [read]\nprompt: You lead.\n",
    );
    const file = script("hello.json", [{ text: "Hello." }]);
    const run = await runNbookInProcess(["run", "hi", "--script", file], { cwd: bed.project.root });
    expect(run.status).toBe(0);
    expect(run.stderr).toContain("lead\\x1b[2K\\x0der.yaml overrides it");
    expect(run.stderr).not.toMatch(RAW_CONTROL);
  });

  it("a workflow's ask title shows visibly in workflows run and workflows show", async () => {
    const title = "Keep the draft?\u001b[2K\r\u009b2KDelete the lorebook?";
    const file = join(bed.dir, "ask.js");
    writeFileSync(
      file,
      `export default async function run(wf) {\n  return await wf.ask({ kind: "approve", title: ${JSON.stringify(title)}, key: "go" });\n}\n`,
    );
    const run = await runNbookInProcess(["workflows", "run", "--file", file], { cwd: bed.project.root });
    expect(run.status).toBe(0);
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect(run.stdout).toContain("Keep the draft?\\x1b[2K\\x0d\\x9b2KDelete the lorebook?");
    const runId = /run_[0-9a-f]+/.exec(run.stdout)?.[0];
    const show = await runNbookInProcess(["workflows", "show", String(runId)], { cwd: bed.project.root });
    expect(show.stdout).not.toMatch(RAW_CONTROL);
    expect(show.stdout).toContain("Waiting on go (approve): Keep the draft?\\x1b[2K\\x0d\\x9b2KDelete");
    const json = await runNbookInProcess(["workflows", "show", String(runId), "--json"], {
      cwd: bed.project.root,
    });
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(json.stdout).pendingAsks[0].spec.title).toBe(title);
  });
});
