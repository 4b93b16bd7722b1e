import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Workspace } from "../../src/workspace/workspace.js";
import { runNbookInProcess } from "../helpers.js";
import { type ServeFixture, serveFixture } from "../serve/fixture.js";

type Json = Record<string, any>;

let dir: string | null = null;
let fx: ServeFixture | null = null;
afterEach(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
  await fx?.close();
  fx = null;
});

describe("a session budget the user lifts", () => {
  it("stops a run, is raised with nbook sessions budget, and the continued run completes", async () => {
    dir = mkdtempSync(join(tmpdir(), "nbook-budget-raise-"));
    const ws = Workspace.init(dir);
    ws.createProject("novel");
    ws.close();
    writeFileSync(
      join(dir, ".nbook", "config.json"),
      JSON.stringify({ budgets: { session: { tokens: 1 } } }),
    );
    const script = join(dir, "script.json");
    writeFileSync(script, JSON.stringify({ turns: [{ text: "First." }, { text: "Second." }] }));
    const cwd = join(dir, "novel");
    const run = (args: string[]) =>
      runNbookInProcess(["run", ...args, "--script", script, "--json"], { cwd });

    expect(JSON.parse((await run(["Begin."])).stdout)).toMatchObject({ sessionId: "1", status: "completed" });
    // The first call used the whole budget: the next run stops before calling the model.
    const stopped = JSON.parse((await run(["Go on.", "--session", "1"])).stdout) as Json;
    expect(stopped.status).toBe("budget_limit");
    expect(stopped.finalMessage).toContain("The session budget is used up");
    expect(stopped.finalMessage).toContain("nbook sessions budget 1 --tokens <limit>");
    expect(stopped.finalMessage).toContain("budgets.session.tokens in .nbook/config.json");

    const shown = await runNbookInProcess(["sessions", "budget", "1"], { cwd });
    expect(shown.stdout).toContain("Session 1 budget: 1 tokens (from config)");
    expect(shown.stdout).toContain("State: stop");

    const bad = await runNbookInProcess(["sessions", "budget", "1", "--lift", "--usd", "1", "--json"], {
      cwd,
    });
    expect(bad.status).not.toBe(0);
    expect(JSON.parse(bad.stdout)).toMatchObject({ error: { code: "invalid_input" } });

    const raised = await runNbookInProcess(["sessions", "budget", "1", "--tokens", "1000000", "--json"], {
      cwd,
    });
    expect(JSON.parse(raised.stdout)).toMatchObject({
      state: "ok",
      session: { limit: { tokens: 1_000_000 }, from: "session" },
    });
    const resumed = JSON.parse((await run(["--session", "1"])).stdout) as Json;
    expect(resumed).toMatchObject({ status: "completed", finalMessage: "Second." });

    // Reset: the config's limit applies again and the session is stopped once more.
    const reset = await runNbookInProcess(["sessions", "budget", "1", "--reset", "--json"], { cwd });
    expect(JSON.parse(reset.stdout)).toMatchObject({ state: "stop", session: { from: "config" } });
  });

  it("is raised over the API: the stopped status names the route, POST lifts it, the next prompt runs", async () => {
    fx = await serveFixture({ script: [{ text: "First answer." }, { text: "After the raise." }] });
    writeFileSync(
      join(fx.bed.ws.root, ".nbook", "config.json"),
      JSON.stringify({ budgets: { session: { tokens: 1 } } }),
    );
    const created = (await (await fx.api("POST", "/api/projects/novel/sessions", {})).json()) as Json;
    const id = created.session.id as string;
    expect((await fx.api("POST", `/api/sessions/${id}/prompt`, { message: "one" })).status).toBe(202);
    await fx.hub.idle();
    const stopped = (await (await fx.api("GET", `/api/sessions/${id}/budget`)).json()) as Json;
    expect(stopped).toMatchObject({
      state: "stop",
      session: { from: "config", limit: { tokens: 1 }, spent: { calls: 1 } },
    });
    expect(stopped.message).toContain(`POST /api/sessions/${id}/budget`);

    const bad = await fx.api("POST", `/api/sessions/${id}/budget`, { usd: -1 });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error.fields[0].pointer).toBe("/body/usd");

    const lifted = (await (
      await fx.api("POST", `/api/sessions/${id}/budget`, { lift: true })
    ).json()) as Json;
    expect(lifted).toMatchObject({ state: "ok", session: { limit: null, from: "session" } });
    expect((await fx.api("POST", `/api/sessions/${id}/prompt`, { message: "two" })).status).toBe(202);
    await fx.hub.idle();
    const transcript = (await (await fx.api("GET", `/api/sessions/${id}/transcript`)).json()) as Json;
    const answers = transcript.entries.filter((e: Json) => e.kind === "assistant");
    expect(answers.map((e: Json) => e.data.text)).toEqual(["First answer.", "After the raise."]);
  });
});
