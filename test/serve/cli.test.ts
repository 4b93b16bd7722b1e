import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { verifyPassword } from "../../src/serve/auth.js";
import { makeTestBed, NBOOK_BIN, runNbook, type TestBed } from "../helpers.js";

let bed: TestBed;
afterEach(() => bed.cleanup());

describe("nbook serve", () => {
  it("listens on 127.0.0.1, prints a login link that works once, serves the API, and stops on SIGTERM", async () => {
    bed = makeTestBed();
    const child = spawn(NBOOK_BIN, ["serve", "--workspace", bed.ws.root, "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let out = "";
      const link = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          const m = /Open (http:\/\/127\.0\.0\.1:\d+\/login\?token=[A-Za-z0-9_-]+)/.exec(out);
          if (m) resolve(m[1]);
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      expect(out).toContain(`NeuroBook is serving ${bed.ws.root}`);
      const login = await fetch(link, { redirect: "manual" });
      expect(login.status).toBe(303);
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
      const base = new URL(link).origin;
      const projects = await fetch(`${base}/api/projects`, { headers: { cookie } });
      expect(
        ((await projects.json()) as { projects: { name: string }[] }).projects.map((p) => p.name),
      ).toEqual(["novel"]);
      expect((await fetch(link, { redirect: "manual" })).status).toBe(401);
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  it("--hash-password prints the config section with a hash of the password read from stdin", () => {
    bed = makeTestBed();
    const r = runNbook(["serve", "--hash-password"], { cwd: bed.dir, input: "a long passphrase\n" });
    expect(r.status).toBe(0);
    const config = JSON.parse(r.stdout) as { serve: { passwordHash: string } };
    expect(config.serve.passwordHash).not.toContain("a long passphrase");
    expect(verifyPassword("a long passphrase", config.serve.passwordHash)).toBe(true);
    expect(verifyPassword("another", config.serve.passwordHash)).toBe(false);
  });

  it("refuses a non-loopback address without a password, and a malformed serve config, naming what to do", () => {
    bed = makeTestBed();
    const open = runNbook(["serve", "--workspace", bed.ws.root, "--host", "0.0.0.0", "--port", "0"], {
      cwd: bed.dir,
    });
    expect(open.status).toBe(2);
    expect(open.stderr).toContain("error [config_error]: Refusing to serve on 0.0.0.0");
    writeFileSync(
      join(bed.ws.nbookDir, "config.json"),
      JSON.stringify({ serve: { passwordHash: "hunter2" } }),
    );
    const bad = runNbook(["serve", "--workspace", bed.ws.root, "--port", "0"], { cwd: bed.dir });
    expect(bad.stderr).toContain("serve.passwordHash");
  });
});
