import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join, posix } from "node:path";

/**
 * One state the flipped name takes: absent, a symbolic link to `link`, or the real folder held at
 * `real`; kept for `dwellUs` microseconds (default: none, on to the next at once).
 */
export type FlipState = ({ absent: true } | { link: string } | { real: string }) & { dwellUs?: number };

// Runs in its own process, as an agent's background job would: cycles `name` through the states as
// fast as it can. A folder someone else created at `name` is removed on the next turn.
const FLIPPER = `
const fs = require("node:fs");
const [name, json] = process.argv.slice(1);
const states = JSON.parse(json);
let current = null;
const clear = () => {
  let st;
  try { st = fs.lstatSync(name); } catch { current = null; return; }
  try {
    if (current && current.real && st.isDirectory()) fs.renameSync(name, current.real);
    else if (st.isDirectory()) fs.rmSync(name, { recursive: true, force: true });
    else fs.unlinkSync(name);
  } catch {}
  current = null;
};
const apply = (s) => {
  try {
    if (s.link) fs.symlinkSync(s.link, name);
    else if (s.real) fs.renameSync(s.real, name);
    current = s;
  } catch {}
  if (s.dwellUs) for (const until = process.hrtime.bigint() + BigInt(s.dwellUs * 1000); process.hrtime.bigint() < until; );
};
// A test that dies without stopping it must not leave it running: it ends when its parent does,
// and after a minute in any case.
const parent = process.ppid;
const deadline = Date.now() + 60_000;
let told = false;
for (let i = 0, n = 0; ; i = (i + 1) % states.length, n++) {
  clear();
  apply(states[i]);
  if (!told && i === states.length - 1) { process.stdout.write("ready\\n"); told = true; }
  if (n % 1000 === 0 && (process.ppid !== parent || Date.now() > deadline)) process.exit(0);
}
`;

/** A background process flipping one name; stop() ends it and puts the held real folder back. */
export interface Flipper {
  stop(): Promise<void>;
}

/** Start flipping `name` through `states` and wait until it has gone round once. */
export async function startFlipper(name: string, states: FlipState[]): Promise<Flipper> {
  const child: ChildProcess = spawn(process.execPath, ["-e", FLIPPER, name, JSON.stringify(states)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the flipper exited early (${code})`)));
    child.stdout?.once("data", () => resolve());
  });
  return {
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
      const held = states.find((s): s is { real: string } => "real" in s);
      // The real folder is either at `name` already or held aside: put it back, drop anything else.
      if (held && !existsSync(held.real)) return;
      rmSync(name, { recursive: true, force: true });
      if (held) renameSync(held.real, name);
    },
  };
}

/** Every file and folder under `root` (relative paths), not following links; [] when it is missing. */
export function treeOf(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
      const p = rel ? posix.join(rel, e.name) : e.name;
      out.push(p);
      if (e.isDirectory()) walk(p);
    }
  };
  if (existsSync(root)) walk("");
  return out.sort();
}
