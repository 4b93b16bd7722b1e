import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type HarnessFixture, harnessFixture } from "./harness-fixture.js";

let fx: HarnessFixture;
afterEach(() => fx?.close());

/** The system prompt of the model's last call. */
function lastSystem(): string {
  const prompt = fx.model.calls.at(-1)?.prompt ?? [];
  const system = prompt.find((m) => m.role === "system");
  return system?.role === "system" ? system.content : "";
}

describe("the project's AGENTS.md reaches the model", () => {
  it("is in the system prompt of every profile's session (the sample's rule about the bells)", async () => {
    const rule = "The bells are never explained outright in the first act.";
    fx = harnessFixture([{ expect: { system: rule }, text: "Understood." }], {
      profiles: { "scout.yaml": "key: scout\nname: Scout\ntools: [read]\nprompt: You scout.\n" },
    });
    const runs = [
      { profileKey: "leader.default" },
      { profileKey: "world.engine" },
      { profileKey: "adhoc", initial: { systemPrompt: "You check continuity." } },
      { profileKey: "scout" },
    ];
    for (const { profileKey, initial } of runs) {
      fx.script([{ expect: { system: rule }, text: "Understood." }]);
      const s = fx.harness.createSession({ profileKey, project: "novel", initial });
      const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "What must I keep in mind?" });
      expect(r.status, `${profileKey}: ${r.error?.message ?? ""}`).toBe("completed");
    }
  });

  it("is cut with a note when it is huge, and the model can still read the rest", async () => {
    fx = harnessFixture([
      {
        expect: { system: "[AGENTS.md is cut here: " },
        toolCalls: [{ name: "read", input: { path: "AGENTS.md", offset: 2000 } }],
      },
      { expect: { lastToolResult: "TAIL-MARKER" }, text: "Read the rest." },
    ]);
    const head = "Point of view: close third on Mira.\n";
    writeFileSync(
      join(fx.project.root, "AGENTS.md"),
      `${head}${"Filler line of standing instructions.\n".repeat(2000)}TAIL-MARKER\n`,
    );
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "go" });
    expect(r.status, r.error?.message).toBe("completed");
    const system = lastSystem();
    expect(system).toContain(head.trim());
    expect(system).not.toContain("TAIL-MARKER");
  });
});
