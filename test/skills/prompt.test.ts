import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type HarnessFixture, harnessFixture } from "../harness-fixture.js";

let fx: HarnessFixture;
afterEach(() => fx?.close());

/** The system prompt of the model's last call. */
function lastSystem(): string {
  const prompt = fx.model.calls.at(-1)?.prompt ?? [];
  const system = prompt.find((m) => m.role === "system");
  return system?.role === "system" ? system.content : "";
}

function addSkill(root: string, folder: string, text: string): void {
  const dir = join(root, ".nbook", "agent", "skills", folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), text);
}

const PROFILES = {
  "scout.yaml": "key: scout\nname: Scout\ntools: [read]\nprompt: You scout.\n",
  "counter.yaml": "key: counter\nname: Counter\ntools: [execute_sql]\nprompt: You count rows.\n",
};

describe("the skills catalog in the system prompt", () => {
  it("lists the skills for a profile with read, and the agent opens one with read", async () => {
    fx = harnessFixture([{ text: "unused" }], { profiles: PROFILES });
    addSkill(
      fx.workspace.root,
      "keep-canon",
      "---\nname: keep-canon\ndescription: Canon the workspace way.\nwhen_to_use: Before changing canon.\n---\nCANON-BODY: ask before renaming anyone.\n",
    );
    addSkill(
      fx.project.root,
      "bell-scenes",
      "---\nname: bell-scenes\ndescription: How bells sound in this novel.\nwhen_to_use: Any scene with a bell.\n---\nBELL-BODY\n",
    );
    addSkill(fx.project.root, "broken-one", "---\nname: broken-one\n---\n");
    const entry = "- keep-canon: Canon the workspace way.";
    for (const profileKey of ["leader.default", "scout"]) {
      fx.script([
        {
          expect: { system: entry },
          toolCalls: [{ name: "read", input: { path: "skill://keep-canon/SKILL.md" } }],
        },
        { expect: { lastToolResult: "CANON-BODY" }, text: "Read it." },
      ]);
      const s = fx.harness.createSession({ profileKey, project: "novel" });
      const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "Rename Mira." });
      expect(r.status, `${profileKey}: ${r.error?.message ?? ""}`).toBe("completed");
      const system = lastSystem();
      expect(system).toContain("- bell-scenes: How bells sound in this novel.");
      // When to use it is in the SKILL.md the agent reads, not in every turn's prompt.
      expect(system).not.toContain("Any scene with a bell.");
      expect(system).toContain("read skill://<name>/SKILL.md first");
      expect(system).toContain("- writing-chain: ");
      expect(system).not.toContain("broken-one");
      // The workspace's keep-canon replaced the built-in one.
      expect(system).not.toContain("Keep the lorebook");
    }
  });

  it("gives no catalog to a profile that cannot read", async () => {
    fx = harnessFixture([{ text: "Counted." }], { profiles: PROFILES });
    const s = fx.harness.createSession({ profileKey: "counter", project: "novel" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "How many scenes?" });
    expect(r.status, r.error?.message).toBe("completed");
    const system = lastSystem();
    expect(system).toContain("You count rows.");
    expect(system).not.toContain("## Skills");
    expect(system).not.toContain("skill://");
  });
});
