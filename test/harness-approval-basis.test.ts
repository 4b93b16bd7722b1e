import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { agentCollaboration } from "../src/collab/plugin.js";
import { Harness } from "../src/harness/loop.js";
import { SessionStore } from "../src/harness/store/index.js";
import { ProfileCatalog } from "../src/profiles/catalog.js";
import { toolPorts } from "../src/runtime/ports.js";
import { createToolRegistry } from "../src/tools/builtin.js";
import { defineTool } from "../src/tools/define.js";
import type { AnyTool, RunGrant } from "../src/tools/types.js";
import { type HarnessFixture, harnessFixture } from "./harness-fixture.js";

let fx: HarnessFixture;
let reopened: Harness | null = null;
afterEach(() => {
  reopened?.close();
  reopened = null;
  fx?.close();
});

/** A second harness on the same workspace and store file, as a new process would open it. */
function restart(tools: AnyTool[] = []): Harness {
  fx.store.close();
  const registry = createToolRegistry();
  for (const t of tools) registry.register(t);
  reopened = new Harness({
    collaboration: agentCollaboration(),
    ports: toolPorts(),
    workspace: fx.workspace,
    store: SessionStore.forWorkspace(fx.workspace),
    registry,
    catalog: new ProfileCatalog(registry, fx.workspace),
    resolveModel: (ref) => ({ ref: ref ?? "scripted/test", model: fx.model, contextWindow: 128_000 }),
  });
  return reopened;
}

const file = (p: string) => join(fx.project.root, p);

describe("an approval carries its preview's basis through the store", () => {
  it("a tool's basis is stored with the approval and handed back exactly, after a restart", async () => {
    const seen: RunGrant[] = [];
    const basis = { writes: [{ subject: "mira", path: "/hp", value: 60 }], at: "1012-03-04", n: 1 };
    const probe = defineTool({
      key: "probe_write",
      group: "world",
      description: "test probe",
      input: z.object({}).strict(),
      effect: "write",
      prepare: () => ({
        effect: "write",
        targets: null,
        preview: () => ({ text: "1 change: mira replace /hp 60", basis }),
        run: async (grant) => {
          seen.push(grant);
          return { text: "probed" };
        },
      }),
    });
    fx = harnessFixture(
      [
        { toolCalls: [{ name: "probe_write", input: {} }] },
        { expect: { lastToolResult: "probed" }, text: "ok" },
      ],
      {
        tools: [probe],
        profiles: { "prober.yaml": "key: prober\nname: Prober\ntools: [probe_write]\nprompt: Probe.\n" },
      },
    );
    const s = fx.harness.createSession({ profileKey: "prober", project: "novel", mode: "discuss" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "go" });
    expect(r.status).toBe("waiting");
    expect(fx.store.approval(r.pending!.approvalId).preview).toEqual({
      text: "1 change: mira replace /hp 60",
      basis,
    });

    const h = restart([probe]);
    expect((await h.settle(s.id, r.pending!.approvalId, { approved: true })).status).toBe("completed");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ approval: { basis } });
  });

  for (const [key, input] of [
    ["edit", { path: "notes.md", edits: [{ oldText: "seventeen", newText: "eighteen" }] }],
    [
      "apply_patch",
      {
        patch:
          "*** Begin Patch\n*** Update File: notes.md\n@@\n-Mira is seventeen.\n+Mira is eighteen.\n*** End Patch",
      },
    ],
  ] as const) {
    it(`${key}: a hand edit between the preview and the approval is kept, and the model gets conflict`, async () => {
      fx = harnessFixture([
        { toolCalls: [{ name: key, input }] },
        {
          expect: { lastToolResult: "changed after the preview the user approved" },
          text: "I will ask again.",
        },
      ]);
      writeFileSync(file("notes.md"), "Mira is seventeen.\n");
      const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel", mode: "discuss" });
      const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "fix her age" });
      expect(r.status).toBe("waiting");
      writeFileSync(file("notes.md"), "Mira is seventeen.\nThe user's line.\n");

      const h = restart();
      const done = await h.settle(s.id, r.pending!.approvalId, { approved: true });
      expect(done).toMatchObject({ status: "completed", finalMessage: "I will ask again." });
      expect(readFileSync(file("notes.md"), "utf8")).toBe("Mira is seventeen.\nThe user's line.\n");
    });
  }

  it("a write that changes nothing runs in discuss mode without an approval", async () => {
    fx = harnessFixture([
      { toolCalls: [{ name: "write", input: { path: "notes.md", content: "Same.\n" } }] },
      { expect: { lastToolResult: "Unchanged: notes.md" }, text: "Nothing to do." },
    ]);
    writeFileSync(file("notes.md"), "Same.\n");
    const s = fx.harness.createSession({ profileKey: "leader.default", project: "novel", mode: "discuss" });
    const r = await fx.harness.invoke(s.id, { mode: "prompt", message: "write it" });
    expect(r).toMatchObject({ status: "completed", finalMessage: "Nothing to do." });
    expect(fx.store.approvals(s.id)).toEqual([]);
  });
});
