import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { sandboxTeardown } from "../../src/tools/files/bash-sandbox.js";

describe("a bash call waits until its sandbox is empty", () => {
  it("returns only once the namespace's init process has ended", async () => {
    const init = spawn("sleep", ["0.3"], { stdio: "ignore" });
    const started = Date.now();
    await sandboxTeardown(JSON.stringify({ "child-pid": init.pid }));
    // A lower bound only: the wait lasted as long as the process, however slow the machine.
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it("does not wait when bwrap never started a sandbox (no or broken info)", async () => {
    await expect(sandboxTeardown("")).resolves.toBeUndefined();
    await expect(sandboxTeardown("{not json")).resolves.toBeUndefined();
    await expect(sandboxTeardown(JSON.stringify({ "child-pid": "12" }))).resolves.toBeUndefined();
  });
});
