import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CollabFixture, call, collabFixture, toolResults } from "./fixture.js";

let fx: CollabFixture | undefined;
afterEach(() => {
  fx?.close();
  fx = undefined;
});

/** The tool results a session recorded, in order. */
describe("create_agent and invoke_agent in the foreground", () => {
  it("creates a linked child in the parent's project and returns its report as the call's result", async () => {
    fx = collabFixture({
      "leader.default": [
        call("create_agent", { profileKey: "writer", title: "Chapter 3" }),
        call("invoke_agent", { sessionId: 2, message: "Draft it.", input: { path: "manuscript/03.md" } }),
        { text: "The writer drafted chapter 3." },
      ],
      writer: [
        { toolCalls: [{ name: "write", input: { path: "manuscript/03.md", content: "The bell rang.\n" } }] },
        call("report_result", {
          result: "Drafted manuscript/03.md",
          data: { summary: "one line", outputPath: "manuscript/03.md" },
        }),
      ],
    });
    const leader = fx.root();
    const r = await fx.harness.invoke(leader.id, { mode: "prompt", message: "Write chapter 3" });
    expect(r.status).toBe("completed");
    const [created, invoked] = toolResults(fx, leader.id);
    expect(created.ok).toBe(true);
    expect(created.details).toMatchObject({ sessionId: "2", profileKey: "writer", title: "Chapter 3" });
    const child = fx.store.session("2");
    expect(child.parentSessionId).toBe(leader.id);
    expect(child.project).toBe("novel");
    expect(fx.store.childLinks(leader.id).map((l) => l.childSessionId)).toEqual(["2"]);
    expect(invoked.ok).toBe(true);
    expect(invoked.text).toBe("Drafted manuscript/03.md");
    const details = invoked.details as Record<string, unknown>;
    expect(details).toMatchObject({
      status: "completed",
      sessionId: "2",
      finalMessage: "Drafted manuscript/03.md",
      data: { summary: "one line", outputPath: "manuscript/03.md" },
    });
    expect(Object.keys(details).sort()).toEqual(["data", "finalMessage", "sessionId", "stats", "status"]);
    expect(readFileSync(join(fx.project.root, "manuscript/03.md"), "utf8")).toBe("The bell rang.\n");
    // The payload reached the child as part of its message.
    const firstUser = fx.store.activePath("2").find((e) => e.kind === "user");
    expect(firstUser?.kind === "user" && firstUser.data.text).toContain('"path": "manuscript/03.md"');
  });
});
