import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNbookInProcess } from "./helpers.js";

const NBOOK = join(import.meta.dirname, "..", "bin", "nbook");
let dir: string;

/** nbook in this process (see runNbookInProcess). */
async function nbook(args: string[]) {
  const r = await runNbookInProcess(args, { cwd: dir });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** nbook as a process reading `input` on its stdin, as a terminal user types. */
function nbookWithStdin(args: string[], input: string) {
  const r = spawnSync(process.execPath, [NBOOK, ...args], {
    cwd: dir,
    encoding: "utf8",
    input,
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nbook-cli-"));
  expect((await nbook(["init", "ws"])).code).toBe(0);
  expect((await nbook(["project", "create", "novel", "--workspace", "ws", "--sample"])).code).toBe(0);
  writeFileSync(
    join(dir, "script.json"),
    JSON.stringify({
      turns: [
        {
          text: "Writing.",
          toolCalls: [{ name: "write", input: { path: "notes/a.md", content: "approved text\n" } }],
        },
        { expect: { lastToolResult: "notes/a.md" }, text: "The note is written." },
      ],
    }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ws = ["--workspace", "ws", "--project", "novel"];

describe("nbook run / approve / chat", () => {
  it("starts a profile that needs an initial object from --initial, validated against its schema", async () => {
    const script = join(dir, "retrieval.json");
    const entries = [{ path: "lorebook/rules/tide-bells/index.md", reason: "the bells" }];
    writeFileSync(
      script,
      JSON.stringify({
        turns: [{ toolCalls: [{ name: "report_result", input: { result: "found", data: { entries } } }] }],
      }),
    );
    const base = ["run", "find the bells", "--profile", "retrieval", "--script", script, "--json", ...ws];
    const missing = await nbook(base);
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.out).error.fields).toEqual([
      { pointer: "/initial/prompt", message: "required" },
    ]);
    const ok = await nbook([...base, "--initial", '{"prompt":"tide bells"}']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out.trim().split("\n").at(-1)!)).toMatchObject({
      status: "completed",
      finalMessage: "found",
      data: { entries },
    });
  });

  it("a pending approval survives the process: run waits, approve in a new process completes it", async () => {
    const run = await nbook([
      "run",
      "write a note",
      "--mode",
      "discuss",
      "--script",
      "script.json",
      "--json",
      ...ws,
    ]);
    expect(run.code).toBe(0);
    const waiting = JSON.parse(run.out.trim().split("\n").at(-1)!);
    expect(waiting).toMatchObject({
      status: "waiting",
      data: null,
      pending: { kind: "write", tool: "write" },
    });
    expect(existsSync(join(dir, "ws/novel/notes/a.md"))).toBe(false);

    const approve = await nbook([
      "approve",
      waiting.sessionId,
      waiting.approvalId,
      "--script",
      "script.json",
      "--json",
      "--workspace",
      "ws",
    ]);
    expect(approve.code).toBe(0);
    expect(JSON.parse(approve.out.trim())).toMatchObject({
      status: "completed",
      finalMessage: "The note is written.",
    });
    expect(readFileSync(join(dir, "ws/novel/notes/a.md"), "utf8")).toBe("approved text\n");

    const again = await nbook([
      "approve",
      waiting.sessionId,
      waiting.approvalId,
      "--script",
      "script.json",
      "--workspace",
      "ws",
    ]);
    expect(again.code).toBe(2);
    expect(again.err).toContain("not_found");
  });

  it("chat --session shows the pending approval and continues after the answer", async () => {
    writeFileSync(
      join(dir, "script2.json"),
      JSON.stringify({
        turns: [
          { toolCalls: [{ name: "write", input: { path: "notes/b.md", content: "second note\n" } }] },
          { expect: { lastToolResult: "rejected" }, text: "Understood, not now." },
        ],
      }),
    );
    const run = await nbook([
      "run",
      "write",
      "--mode",
      "discuss",
      "--script",
      "script2.json",
      "--json",
      ...ws,
    ]);
    const waiting = JSON.parse(run.out.trim());
    const chat = nbookWithStdin(
      ["chat", "--session", waiting.sessionId, "--script", "script2.json", "--workspace", "ws"],
      "n\ntoo early\n/tasks\n/exit\n",
    );
    expect(chat.code).toBe(0);
    expect(chat.out).toContain("This session is waiting");
    expect(chat.out).toContain("+second note");
    expect(chat.out).toContain("rejected by the user");
    expect(chat.out).toContain("Understood, not now.");
    expect(chat.out).toContain("(no tasks)");
    expect(existsSync(join(dir, "ws/novel/notes/b.md"))).toBe(false);
  });

  it("approve --reject --reason gives the agent the reason and writes nothing", async () => {
    writeFileSync(
      join(dir, "script3.json"),
      JSON.stringify({
        turns: [
          { toolCalls: [{ name: "write", input: { path: "notes/c.md", content: "third note\n" } }] },
          { expect: { lastToolResult: "Reason: keep it for later." }, text: "Kept for later." },
        ],
      }),
    );
    const run = await nbook([
      "run",
      "write",
      "--mode",
      "discuss",
      "--script",
      "script3.json",
      "--json",
      ...ws,
    ]);
    const waiting = JSON.parse(run.out.trim());
    const reject = await nbook([
      "approve",
      waiting.sessionId,
      waiting.approvalId,
      "--reject",
      "--reason",
      "keep it for later",
      "--script",
      "script3.json",
      "--json",
      "--workspace",
      "ws",
    ]);
    expect(reject.code).toBe(0);
    expect(JSON.parse(reject.out.trim())).toMatchObject({
      status: "completed",
      finalMessage: "Kept for later.",
    });
    expect(existsSync(join(dir, "ws/novel/notes/c.md"))).toBe(false);
  });

  it("the approval header names the tool, and the kind only where it adds something", async () => {
    writeFileSync(
      join(dir, "script5.json"),
      JSON.stringify({
        turns: [{ toolCalls: [{ name: "switch_mode", input: { mode: "normal", reason: "to draft" } }] }],
      }),
    );
    const run = await nbook(["run", "draft", "--mode", "plan", "--script", "script5.json", ...ws]);
    expect(run.out).toMatch(/approval needed \[\d+\]: switch_mode ──/);
    expect(run.out).not.toContain("switch_mode (switch_mode)");
  });

  it("a question waits in run, shows in sessions show, and approve --answer answers it", async () => {
    writeFileSync(
      join(dir, "script4.json"),
      JSON.stringify({
        turns: [
          {
            toolCalls: [
              {
                name: "request_user_input",
                input: { question: "Whose point of view?", choices: ["Mira", "Tomas"], allowFreeText: false },
              },
            ],
          },
          { expect: { lastToolResult: "The user answered: Tomas" }, text: "Tomas narrates." },
        ],
      }),
    );
    const run = await nbook(["run", "draft", "--script", "script4.json", "--json", ...ws]);
    const waiting = JSON.parse(run.out.trim());
    expect(waiting).toMatchObject({ status: "waiting", pending: { kind: "user_input" } });
    const show = await nbook(["sessions", "show", waiting.sessionId, "--workspace", "ws"]);
    expect(show.out).toContain(`Pending question ${waiting.approvalId}: Whose point of view?`);
    const common = ["--script", "script4.json", "--json", "--workspace", "ws"];
    const bare = await nbook(["approve", waiting.sessionId, waiting.approvalId, ...common]);
    expect(bare.code).toBe(2);
    expect(bare.out).toContain("--answer");
    const answer = await nbook([
      "approve",
      waiting.sessionId,
      waiting.approvalId,
      "--answer",
      "2",
      ...common,
    ]);
    expect(JSON.parse(answer.out.trim())).toMatchObject({
      status: "completed",
      finalMessage: "Tomas narrates.",
    });
  });

  it("in chat, Ctrl-C aborts the running turn, the session goes on, and Ctrl-C at the prompt exits", async () => {
    writeFileSync(
      join(dir, "script5.json"),
      JSON.stringify({
        turns: [{ text: "Thinking about the bell", waitForAbort: true }, { text: "Back again." }],
      }),
    );
    const child = spawn(process.execPath, [NBOOK, "chat", "--script", "script5.json", ...ws], { cwd: dir });
    let out = "";
    let err = "";
    // Output is awaited in order: each wait looks only after what the previous one matched.
    let from = 0;
    let waiter: { text: string; resolve: () => void } | null = null;
    const check = () => {
      const at = waiter ? out.indexOf(waiter.text, from) : -1;
      if (!waiter || at < 0) return;
      from = at + waiter.text.length;
      const { resolve } = waiter;
      waiter = null;
      resolve();
    };
    child.stdout.on("data", (d) => {
      out += d;
      check();
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    const seen = (text: string) =>
      new Promise<void>((resolve) => {
        waiter = { text, resolve };
        check();
      });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));

    child.stdin.write("go\n");
    await seen("Thinking about the bell");
    child.kill("SIGINT");
    await seen("(run ended: aborted)");
    child.stdin.write("continue please\n");
    await seen("Back again.");
    await seen("you › ");
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(err).toContain("(aborting");
    const id = /Session (\d+) ·/.exec(out)?.[1] ?? "";
    const show = await nbook(["sessions", "show", id, "--workspace", "ws"]);
    expect(show.out).toContain("assistant [aborted]: Thinking about the bell");
    expect(show.out).toContain("assistant: Back again.");
    expect(show.out).toMatch(/· idle\n/);
  });

  it("without a model configured, run names the missing setting", async () => {
    const r = await nbook(["run", "hello", ...ws]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("config_error");
    expect(r.err).toContain("defaultModel");
  });
});
