import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionStore } from "../../src/harness/store/index.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CHILD = fileURLToPath(new URL("./fixtures/store-child.ts", import.meta.url));

/** Run the fixture in a new Node process (TypeScript through tsx). */
function child(...args: string[]): string {
  return execFileSync(process.execPath, ["--import", "tsx", CHILD, ...args], { cwd: ROOT, encoding: "utf8" });
}

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "nb-store-proc-"));
  file = join(dir, "agent.sqlite");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("durability across processes", () => {
  it("a pending approval written by one process survives its exit and is settled by another", () => {
    const { sessionId, approvalId } = JSON.parse(child("suspend", file)) as {
      sessionId: string;
      approvalId: string;
    };

    const store = SessionStore.open(file);
    try {
      expect(store.session(sessionId)).toMatchObject({
        status: "waiting",
        mode: "discuss",
        model: "scripted/demo",
      });
      expect(store.pendingApprovals(sessionId)).toEqual([
        expect.objectContaining({
          id: approvalId,
          toolKey: "write",
          input: { path: "ch1.md" },
          preview: { text: "+++ ch1.md\n+It rained." },
          status: "pending",
        }),
      ]);
      expect(store.pendingToolCalls(sessionId).map((p) => p.call.id)).toEqual(["w1"]);
      // Cache this connection's view of the path before the other process writes.
      expect(store.activePath(sessionId)).toHaveLength(3);

      child("approve", file, approvalId);

      expect(store.approval(approvalId)).toMatchObject({ status: "approved" });
      expect(store.pendingApprovals()).toEqual([]);
      expect(store.pendingToolCalls(sessionId)).toEqual([]);
      expect(store.activePath(sessionId).map((e) => e.kind)).toEqual([
        "user",
        "assistant",
        "approval_request",
        "approval_decision",
        "tool_result",
      ]);
      expect(store.session(sessionId).status).toBe("idle");
    } finally {
      store.close();
    }
    expect(readFileSync(file).subarray(0, 15).toString()).toBe("SQLite format 3");
  });
});
