import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CLEARED_NOTICE, LineReader } from "../../src/cli/line-reader.js";
import { makeTestBed, NBOOK_BIN, type TestBed } from "../helpers.js";

/** A reader on a terminal-like input (keys, not piped lines), idle, recording what it printed and whether it exited. */
function idleReader() {
  const input = new PassThrough();
  const output = new PassThrough();
  let printed = "";
  output.on("data", (d) => {
    printed += d;
  });
  const state = { exits: 0 };
  const reader = new LineReader({
    input,
    output,
    terminal: true,
    onInterrupt: () => false,
    onExit: () => {
      state.exits++;
    },
  });
  return { input, reader, state, printed: () => printed };
}

describe("Ctrl-C at an idle nbook chat prompt", () => {
  it("clears a half-typed line and says how to exit; the next line is what is typed after", async () => {
    const { input, reader, state, printed } = idleReader();
    const line = reader.next("\nyou › ");
    input.write("half a though");
    input.write("\u0003");
    expect(state.exits).toBe(0);
    expect(printed()).toContain(CLEARED_NOTICE);
    input.write("hello\r");
    expect(await line).toBe("hello");
    reader.close();
  });

  it("on an empty line exits, and Ctrl-D (end of input) ends the chat too", async () => {
    const { input, reader, state } = idleReader();
    const first = reader.next("you › ");
    input.write("\u0003");
    expect(state.exits).toBe(1);
    input.write("\u0004");
    expect(await first).toBeNull();
  });

  it("leaves Ctrl-C to a running turn when the caller takes it", () => {
    const input = new PassThrough();
    let taken = 0;
    const reader = new LineReader({
      input,
      output: new PassThrough(),
      terminal: true,
      onInterrupt: () => ++taken > 0,
      onExit: () => {
        throw new Error("must not exit");
      },
    });
    input.write("typed ahead");
    input.write("\u0003");
    expect(taken).toBe(1);
    reader.close();
  });
});

const hasScript = spawnSync("script", ["--version"]).status === 0;

describe.skipIf(!hasScript)("nbook chat on a terminal (a pseudo-terminal made by script(1))", () => {
  let bed: TestBed;
  beforeEach(() => {
    bed = makeTestBed();
  });
  afterEach(() => bed.cleanup());

  it("one Ctrl-C with half-typed text clears it and the chat goes on; Ctrl-C on the empty line exits", async () => {
    const file = join(bed.dir, "hello.json");
    writeFileSync(file, JSON.stringify({ turns: [{ text: "Hello back." }] }));
    // script(1) gives nbook a terminal; its own stdin is this test's pipe, typed bytes as keys.
    const child = spawn("script", ["-qfec", `${NBOOK_BIN} chat --script ${file}`, "/dev/null"], {
      cwd: bed.project.root,
      env: { ...process.env, TERM: "dumb" },
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const seen = async (text: string, from = 0) => {
      for (let i = 0; i < 200 && out.indexOf(text, from) < 0; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(out.slice(from), out).toContain(text);
      return out.indexOf(text, from) + text.length;
    };
    let at = await seen("you › ");
    child.stdin.write("half typed");
    await seen("half typed", at);
    child.stdin.write("\u0003");
    at = await seen(CLEARED_NOTICE, at);
    child.stdin.write("hi\r");
    at = await seen("Hello back.", at);
    at = await seen("you › ", at);
    child.stdin.write("\u0003");
    expect(await exited).toBe(130);
  });
});
