import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNbookInProcess } from "../helpers.js";

const NBOOK = join(import.meta.dirname, "..", "..", "bin", "nbook");
let dir: string;

async function nbook(args: string[]) {
  const r = await runNbookInProcess(args, { cwd: dir });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function chat(input: string) {
  const r = spawnSync(
    process.execPath,
    [NBOOK, "chat", "--script", "script.json", "--workspace", "ws", "--project", "novel"],
    { cwd: dir, encoding: "utf8", input, timeout: 60_000 },
  );
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const note = () => readFileSync(join(dir, "ws/novel/notes/a.md"), "utf8");
const write = (content: string) => ({
  toolCalls: [{ name: "write", input: { path: "notes/a.md", content } }],
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nbook-rewind-"));
  expect((await nbook(["init", "ws"])).code).toBe(0);
  expect((await nbook(["project", "create", "novel", "--workspace", "ws"])).code).toBe(0);
  writeFileSync(
    join(dir, "script.json"),
    JSON.stringify({ turns: [write("one\n"), { text: "wrote one" }, write("two\n"), { text: "wrote two" }] }),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("rewind and fork at the doors", () => {
  let session = "";
  it("in chat, /undo takes back the last turn's write and /rewind lists where it can go back to", () => {
    const r = chat("write one\nwrite two\n/undo\n/rewind\n/rewind 99999\n/exit\n");
    expect(r.code).toBe(0);
    session = /Session (\d+) ·/.exec(r.out)?.[1] ?? "";
    expect(r.out).toMatch(/Took back c[0-9a-z]+ \(change c[0-9a-z]+\)/);
    expect(r.out).toMatch(/Rewind points[^\n]*\n\s+\d+ {2}before “write two”/);
    expect(r.out).toContain(`error [not_found]: No entry 99999 in session ${session}`);
    expect(note()).toBe("one\n");
  });

  it("nbook sessions rewind --both and nbook sessions fork --at", async () => {
    const show = JSON.parse((await nbook(["sessions", "show", session, "--json", "--workspace", "ws"])).out);
    const path = show.path as { id: string; kind: string; data: { text?: string } }[];
    const second = path.findIndex((e) => e.kind === "user" && e.data.text === "write two");
    const before = path[second - 2].id;
    // /undo already took turn 2's write back: --both finds nothing left to revert and moves the conversation.
    const both = await nbook([
      "sessions",
      "rewind",
      session,
      "--to",
      before,
      "--both",
      "--json",
      "--workspace",
      "ws",
    ]);
    expect(both.code).toBe(0);
    expect(JSON.parse(both.out)).toMatchObject({ sessionId: session, leafId: before });
    expect(note()).toBe("one\n");

    const fork = await nbook(["sessions", "fork", session, "--at", before, "--json", "--workspace", "ws"]);
    expect(fork.code).toBe(0);
    const forked = JSON.parse(fork.out);
    expect(forked.id).not.toBe(session);
    const copy = JSON.parse(
      (await nbook(["sessions", "show", forked.id, "--json", "--workspace", "ws"])).out,
    );
    expect(copy.path.map((e: { kind: string }) => e.kind)).toEqual(
      path.slice(0, second - 1).map((e) => e.kind),
    );
  });

  it("bad input is a clear error with a stable code", async () => {
    const two = await nbook([
      "sessions",
      "rewind",
      session,
      "--to",
      "1",
      "--files",
      "--both",
      "--json",
      "--workspace",
      "ws",
    ]);
    expect(two.code).not.toBe(0);
    expect(JSON.parse(two.out).error.code).toBe("invalid_input");
    const unknown = await nbook(["sessions", "fork", "4242", "--at", "1", "--json", "--workspace", "ws"]);
    expect(JSON.parse(unknown.out).error).toMatchObject({ code: "not_found" });
  });
});
