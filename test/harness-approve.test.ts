import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNbookInProcess } from "./helpers.js";

let dir: string;
const ws = ["--workspace", "ws"];
const inProject = [...ws, "--project", "novel"];

function nbook(args: string[], env?: Record<string, string>) {
  return runNbookInProcess(args, { cwd: dir, env });
}

/** The last JSON line a command printed. */
function lastJson(out: string) {
  return JSON.parse(out.trim().split("\n").at(-1)!);
}

function script(name: string, turns: unknown[]): string {
  writeFileSync(join(dir, name), JSON.stringify({ turns }));
  return name;
}

/** Start a discuss-mode run that stops on a write of `content`; returns its session and approval ids. */
async function waitingWrite(file: string, content: string) {
  const r = await nbook(["run", "write it", "--mode", "discuss", "--script", file, "--json", ...inProject]);
  const out = lastJson(r.stdout);
  expect(out).toMatchObject({ status: "waiting", pending: { kind: "write", tool: "write" } });
  expect(out.pending.preview).toContain(`+${content.trim()}`);
  return { session: String(out.sessionId), approval: String(out.approvalId) };
}

const projectFile = (p: string) => join(dir, "ws", "novel", p);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nbook-approve-"));
  expect((await nbook(["init", "ws"])).status).toBe(0);
  expect((await nbook(["project", "create", "novel", ...ws])).status).toBe(0);
  mkdirSync(projectFile("notes"), { recursive: true });
  // A provider whose key comes from OPENAI_API_KEY, which the tests leave unset.
  writeFileSync(
    join(dir, "ws", ".nbook", "config.json"),
    JSON.stringify({ providers: { openai: { kind: "openai" } } }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("nbook approve runs what the user saw", () => {
  it("a hand edit between the preview and nbook approve is kept: the write answers conflict with a fresh diff", async () => {
    writeFileSync(projectFile("notes/hand.md"), "first draft\n");
    const file = script("hand.json", [
      { toolCalls: [{ name: "write", input: { path: "notes/hand.md", content: "agent draft\n" } }] },
      {
        expect: { lastToolResult: "notes/hand.md changed after the preview the user approved" },
        text: "The note changed under me; I will ask again.",
      },
    ]);
    const { session, approval } = await waitingWrite(file, "agent draft");
    writeFileSync(projectFile("notes/hand.md"), "first draft\nthe user's own line\n");

    const r = await nbook(["approve", session, approval, "--script", file, "--json", ...ws]);
    expect(r.status).toBe(0);
    expect(lastJson(r.stdout)).toMatchObject({
      status: "completed",
      finalMessage: "The note changed under me; I will ask again.",
    });
    expect(readFileSync(projectFile("notes/hand.md"), "utf8")).toBe("first draft\nthe user's own line\n");
    const show = await nbook(["sessions", "export", session, "--format", "jsonl", ...ws]);
    const result = show.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((e) => e.kind === "tool_result");
    expect(result.data.error.code).toBe("conflict");
    expect(result.data.error.message).toContain("-the user's own line");
  });
});

describe("nbook approve resolves the model before it settles anything", () => {
  const turns = [
    { toolCalls: [{ name: "write", input: { path: "notes/model.md", content: "model note\n" } }] },
    { expect: { lastToolResult: "notes/model.md" }, text: "Written." },
  ];

  it("a scripted session without --script, or a model whose key is missing: an error, and the approval still waits", async () => {
    const file = script("model.json", turns);
    const { session, approval } = await waitingWrite(file, "model note");

    const noScript = await nbook(["approve", session, approval, ...ws]);
    expect(noScript.status).toBe(2);
    expect(noScript.stderr).toContain("config_error");
    expect(noScript.stderr).toContain("--script");
    expect(noScript.stderr).toContain(`Nothing was settled: approval ${approval} still waits.`);

    const noKey = await nbook(
      ["approve", session, approval, "--model", "openai/gpt-4o-mini", "--json", ...ws],
      {
        OPENAI_API_KEY: "",
      },
    );
    expect(noKey.status).toBe(2);
    expect(lastJson(noKey.stdout).error).toMatchObject({ code: "config_error" });
    expect(lastJson(noKey.stdout).error.message).toContain("OPENAI_API_KEY");

    expect(() => readFileSync(projectFile("notes/model.md"))).toThrow();
    const show = await nbook(["sessions", "show", session, ...ws]);
    expect(show.stdout).toContain(`approve ${session} ${approval}`);

    const ok = await nbook(["approve", session, approval, "--script", file, "--json", ...ws]);
    expect(lastJson(ok.stdout)).toMatchObject({ status: "completed", finalMessage: "Written." });
    expect(readFileSync(projectFile("notes/model.md"), "utf8")).toBe("model note\n");
  });

  it("when the run fails after the approval is settled, it says so, and nbook run --session N continues it", async () => {
    const write = { name: "write", input: { path: "notes/short.md", content: "short note\n" } };
    const short = script("short.json", [{ toolCalls: [write] }]);
    const { session, approval } = await waitingWrite(short, "short note");
    const r = await nbook(["approve", session, approval, "--script", short, ...ws]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`Approval ${approval} is settled (approved).`);
    expect(r.stdout).toContain(`It can go on: nbook run --session ${session}`);
    expect(readFileSync(projectFile("notes/short.md"), "utf8")).toBe("short note\n");

    const again = await nbook(["approve", session, approval, "--script", short, ...ws]);
    expect(again.stderr).toContain("waits on nothing");

    const rest = script("rest.json", [
      { toolCalls: [write] },
      { expect: { lastToolResult: "notes/short.md" }, text: "Written." },
    ]);
    const go = await nbook(["run", "--session", session, "--script", rest, "--json", ...ws]);
    expect(go.status).toBe(0);
    expect(lastJson(go.stdout)).toMatchObject({ status: "completed", finalMessage: "Written." });
  });

  it("--reject with --answer is a usage error that settles nothing", async () => {
    const r = await nbook(["approve", "1", "2", "--reject", "--answer", "Mira", ...ws]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--reject and --answer cannot be used together");
    const bare = await nbook(["run", ...inProject]);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toContain("--session N");
  });
});
