import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WorkflowStore } from "../../src/workflows/store/index.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { NBOOK_BIN } from "../helpers.js";
import { type ModelStub, startModelStub } from "./model-stub.js";

const FANOUT = `export const title = "Fan-out";
export const description = "One adhoc agent per item.";
export const whenToUse = "Tests.";
export const phases = [{ key: "items", title: "Items" }];
export const args = { type: "object", properties: { items: { type: "array", items: { type: "string" } } }, required: ["items"] };
export default async function run(wf, args) {
  return wf.map(args.items, async (item) => {
    const agent = await wf.agents.create("adhoc", { initial: { systemPrompt: "Answer in two words." }, ephemeral: true });
    return (await agent.invoke({ message: item })).message;
  }, { concurrency: 3 });
}
`;

let stub: ModelStub | null = null;
let dir = "";
let child: ChildProcess | null = null;
afterEach(async () => {
  child?.kill("SIGKILL");
  await stub?.close();
  rmSync(dir, { recursive: true, force: true });
});

function nbook(args: string[], cwd: string): ChildProcess {
  return spawn(NBOOK_BIN, args, {
    cwd,
    env: { ...process.env, STUB_API_KEY: "k" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

async function until(check: () => boolean, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A workspace whose default model is the stub, with the fan-out workflow in its workspace layer. */
function setUp(s: ModelStub): string {
  dir = mkdtempSync(join(tmpdir(), "nbook-wf-kill-"));
  const ws = Workspace.init(dir);
  ws.createProject("novel");
  ws.close();
  writeFileSync(
    join(dir, ".nbook", "config.json"),
    JSON.stringify({
      providers: { stub: { kind: "openai-compatible", baseURL: s.baseURL, apiKeyEnv: "STUB_API_KEY" } },
      defaultModel: "stub/m",
    }),
  );
  mkdirSync(join(dir, ".nbook", "agent", "workflows", "fanout"), { recursive: true });
  writeFileSync(join(dir, ".nbook", "agent", "workflows", "fanout", "workflow.js"), FANOUT);
  return join(dir, "novel");
}

describe("a run killed mid-fan-out", () => {
  it("resumes in a new process with every finished activity taken from the journal (the model sees no repeated call)", async () => {
    stub = await startModelStub();
    const project = setUp(stub);
    const items = ["item-1", "item-2", "item-3", "item-4", "item-5", "item-6"];
    stub.hang.add("item-2");
    stub.hang.add("item-5");
    child = nbook(["workflows", "run", "fanout", "--args", JSON.stringify({ items })], project);
    let stderr = "";
    child.stderr?.on("data", (d) => {
      stderr += d;
    });
    const store = WorkflowStore.open(join(dir, ".nbook", "workflows.sqlite"));
    try {
      // Four invocations finish; items 2 and 5 hang inside the model call.
      const invoked = () => {
        const [run] = store.listRuns();
        return run ? store.journal(run.id).filter((e) => e.kind === "session.invoke").length : 0;
      };
      await until(
        () => invoked() === 4 && stub!.seen.includes("item-5"),
        `four invocations (stderr: ${stderr})`,
      );
      child.kill("SIGKILL");
      await new Promise((r) => child!.once("exit", r));
      child = null;
      const [run] = store.listRuns();
      expect(run.status).toBe("running");
      const firstProcess = [...stub.seen].sort();
      expect(firstProcess).toEqual(items);

      stub.hang.clear();
      const resumed = nbook(["workflows", "resume", run.id, "--json"], project);
      let out = "";
      resumed.stdout?.on("data", (d) => {
        out += d;
      });
      const code = await new Promise((r) => resumed.once("exit", r));
      expect(code).toBe(0);
      const view = JSON.parse(out);
      expect(view.run.status).toBe("completed");
      expect(view.run.result).toEqual(items.map((i) => `done ${i}`));
      // The resumed process asked the model only for the two unfinished items.
      expect(stub.seen.slice(firstProcess.length).sort()).toEqual(["item-2", "item-5"]);
      for (const i of ["item-1", "item-3", "item-4", "item-6"])
        expect(stub.seen.filter((s) => s === i)).toHaveLength(1);
      expect(store.journal(run.id).filter((e) => e.kind === "agents.create")).toHaveLength(6);
    } finally {
      store.close();
    }
  }, 120_000);
});

describe("cancel from another process", () => {
  it("nbook workflows cancel stops a run another live process drives: it ends cancelled, its hung calls aborted", async () => {
    stub = await startModelStub();
    const project = setUp(stub);
    stub.hang.add("item-1");
    stub.hang.add("item-2");
    child = nbook(
      ["workflows", "run", "fanout", "--args", JSON.stringify({ items: ["item-1", "item-2"] })],
      project,
    );
    const store = WorkflowStore.open(join(dir, ".nbook", "workflows.sqlite"));
    try {
      await until(
        () => stub!.seen.includes("item-1") && stub!.seen.includes("item-2"),
        "both calls in flight",
      );
      const [run] = store.listRuns();
      // A second process refuses to take over a run whose driver is alive.
      const refused = spawn(NBOOK_BIN, ["workflows", "resume", run.id], {
        cwd: project,
        env: { ...process.env, STUB_API_KEY: "k" },
      });
      let err = "";
      refused.stderr?.on("data", (d) => {
        err += d;
      });
      expect(await new Promise((r) => refused.once("exit", r))).not.toBe(0);
      expect(err).toContain("driven by another process");
      const cancel = nbook(["workflows", "cancel", run.id], project);
      expect(await new Promise((r) => cancel.once("exit", r))).toBe(0);
      const code = await new Promise((r) => child!.once("exit", r));
      child = null;
      expect(store.run(run.id).status).toBe("cancelled");
      expect(code).toBe(0);
      expect(store.journal(run.id).filter((e) => e.kind === "session.invoke")).toEqual([]);
    } finally {
      store.close();
    }
  }, 120_000);
});
