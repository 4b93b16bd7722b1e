import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { runnerAlive, thisRunner } from "../../src/jobs/index.js";

describe("runner identity", () => {
  it("names this process by host, pid and start time, and finds it alive", () => {
    const me = thisRunner();
    expect(me).toMatch(new RegExp(`^${hostname()}:${process.pid}:\\d+$`));
    expect(runnerAlive(me)).toBe(true);
  });

  it("takes a reused pid (same pid, other start time) and a gone pid for dead", () => {
    const start = Number(thisRunner().split(":").pop());
    expect(runnerAlive(`${hostname()}:${process.pid}:${start + 1}`)).toBe(false);
    // Past the kernel's pid limit (2^22), so no process has it.
    expect(runnerAlive(`${hostname()}:${2 ** 22 + 1}:1`)).toBe(false);
    expect(runnerAlive("not a runner")).toBe(false);
  });

  it("leaves a runner on another host alone (it cannot be checked from here)", () => {
    expect(runnerAlive(`not-${hostname()}:1:1`)).toBe(true);
  });
});
