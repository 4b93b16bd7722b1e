import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Mode } from "../../src/core/modes.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import type { DispatchResult, ToolContext, ToolPreview } from "../../src/tools/types.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
const registry = createToolRegistry();
beforeEach(() => {
  bed = makeTestBed("novel");
  writeFileSync(abs("notes.md"), "Mira is seventeen.\nThe bell is silent.\n");
});
afterEach(() => bed.cleanup());

const abs = (p: string) => join(bed.project.root, p);
const notes = () => readFileSync(abs("notes.md"), "utf8");

/** One call through dispatch in `mode`; `approved` settles it against a preview's basis. */
function call(
  key: string,
  input: unknown,
  mode: Mode,
  approved?: { basis: unknown },
): Promise<DispatchResult> {
  return bed.call(key, input, {
    mode,
    ...(approved ? { approved: true, approvedBasis: approved.basis } : {}),
  });
}

/** The preview a discuss-mode call is stopped with; the basis goes through JSON, as it does in the store. */
async function previewOf(key: string, input: unknown): Promise<ToolPreview> {
  const r = await call(key, input, "discuss");
  if (r.ok || r.error.code !== "approval_required")
    throw new Error(`expected an approval: ${JSON.stringify(r)}`);
  return JSON.parse(JSON.stringify((r.error.details as { preview: ToolPreview }).preview));
}

const HAND_EDIT = "Mira is seventeen.\nThe bell is silent.\nA line the user added by hand.\n";

const writes = {
  write: { path: "notes.md", content: "Mira is eighteen.\nThe bell is silent.\n" },
  edit: { path: "notes.md", edits: [{ oldText: "seventeen", newText: "eighteen" }] },
  apply_patch: {
    patch:
      "*** Begin Patch\n*** Update File: notes.md\n@@\n-Mira is seventeen.\n+Mira is eighteen.\n*** End Patch",
  },
} as const;

describe("an approved file write runs exactly what its preview showed", () => {
  for (const [key, input] of Object.entries(writes)) {
    it(`${key}: the preview records the target's hash, and approving it writes`, async () => {
      const preview = await previewOf(key, input);
      expect(preview.basis).toEqual({
        files: [{ path: "notes.md", sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }],
      });
      const r = await call(key, input, "discuss", { basis: preview.basis });
      expect(r.ok).toBe(true);
      expect(notes()).toContain("Mira is eighteen.");
    });

    it(`${key}: a hand edit after the preview is kept; the approval fails with conflict and a fresh diff`, async () => {
      const preview = await previewOf(key, input);
      writeFileSync(abs("notes.md"), HAND_EDIT);
      const r = await call(key, input, "discuss", { basis: preview.basis });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error.code).toBe("conflict");
      expect(r.error.message).toContain("notes.md changed after the preview the user approved");
      expect(notes()).toBe(HAND_EDIT);
      // The fresh preview is the change as it would apply to the file as it is now, re-approvable.
      const fresh = (r.error.details as { preview?: ToolPreview }).preview;
      if (key === "write") {
        expect(fresh?.text).toContain("-A line the user added by hand.");
      } else {
        expect(fresh?.text).toContain("+Mira is eighteen.");
        expect(fresh?.text).not.toContain("-A line the user added by hand.");
      }
      expect(r.error.message).toContain(fresh?.text);
      const again = await call(key, input, "discuss", { basis: fresh?.basis });
      expect(again.ok).toBe(true);
      expect(notes()).toContain("Mira is eighteen.");
    });
  }

  it("edit: a hand edit that removes the replaced text is a conflict saying why it no longer applies", async () => {
    const preview = await previewOf("edit", writes.edit);
    writeFileSync(abs("notes.md"), "Mira is nineteen.\n");
    const r = await call("edit", writes.edit, "discuss", { basis: preview.basis });
    expect(!r.ok && r.error.code).toBe("conflict");
    expect(!r.ok && r.error.message).toContain("no longer applies");
    expect(notes()).toBe("Mira is nineteen.\n");
  });

  it("write: a file created after a preview that saw none is a conflict", async () => {
    const input = { path: "fresh.md", content: "new\n" };
    const preview = await previewOf("write", input);
    expect(preview.basis).toEqual({ files: [{ path: "fresh.md", sha256: null }] });
    writeFileSync(abs("fresh.md"), "the user's own file\n");
    const r = await call("write", input, "discuss", { basis: preview.basis });
    expect(!r.ok && r.error.code).toBe("conflict");
    expect(readFileSync(abs("fresh.md"), "utf8")).toBe("the user's own file\n");
  });

  it("apply_patch: a change to any of its targets is a conflict, and none of the patch is written", async () => {
    writeFileSync(abs("other.md"), "one\n");
    const patch =
      "*** Begin Patch\n*** Update File: notes.md\n@@\n-Mira is seventeen.\n+Mira is eighteen.\n*** Update File: other.md\n@@\n-one\n+two\n*** End Patch";
    const preview = await previewOf("apply_patch", { patch });
    writeFileSync(abs("other.md"), "one\nand more\n");
    const r = await call("apply_patch", { patch }, "discuss", { basis: preview.basis });
    expect(!r.ok && r.error.code).toBe("conflict");
    expect(!r.ok && r.error.message).toContain("other.md changed");
    expect(notes()).toContain("seventeen");
  });

  it("a hand edit that already made the change leaves nothing to write: the approval succeeds, unchanged", async () => {
    const preview = await previewOf("write", writes.write);
    writeFileSync(abs("notes.md"), writes.write.content);
    const r = await call("write", writes.write, "discuss", { basis: preview.basis });
    expect(r.ok && r.text).toMatch(/^Unchanged: notes.md/);
  });

  it("an approval up front (no preview, no basis) runs the call as it stands", async () => {
    writeFileSync(abs("notes.md"), HAND_EDIT);
    const r = await call("edit", writes.edit, "discuss", { basis: undefined });
    expect(r.ok).toBe(true);
    expect(notes()).toBe(HAND_EDIT.replace("seventeen", "eighteen"));
  });

  it("a basis that is not a file basis is refused", async () => {
    const r = await call("write", writes.write, "discuss", { basis: { changes: 1 } });
    expect(!r.ok && r.error.code).toBe("conflict");
    expect(notes()).toContain("seventeen");
  });
});

describe("a file write that changes nothing does not ask", () => {
  const noops = {
    write: { path: "notes.md", content: "Mira is seventeen.\nThe bell is silent.\n" },
    edit: { path: "notes.md", edits: [{ oldText: "seventeen", newText: "seventeen" }] },
    apply_patch: {
      patch:
        "*** Begin Patch\n*** Update File: notes.md\n@@\n-Mira is seventeen.\n+Mira is seventeen.\n*** End Patch",
    },
  } as const;
  for (const mode of ["discuss", "plan", "normal"] as const) {
    for (const [key, input] of Object.entries(noops)) {
      it(`${mode} mode: ${key} with no change runs without approval and says it is unchanged`, async () => {
        const r = await call(key, input, mode);
        expect(r.ok).toBe(true);
        expect(r.ok && r.text).toMatch(/^Unchanged: /);
        expect(notes()).toBe("Mira is seventeen.\nThe bell is silent.\n");
      });
    }
  }

  it("a write that reaches execute ungated in a read-only mode, yet would change something, writes nothing", async () => {
    // What dispatch does for a call whose preview showed no change, should the file change meanwhile.
    const ctx: ToolContext = {
      workspace: bed.ws,
      project: bed.project,
      mode: "discuss",
      profileKey: null,
      binding: {},
      worldFiles: "readwrite",
    };
    for (const [key, input] of Object.entries(writes)) {
      const prepared = await registry.get(key)!.prepare(input, ctx);
      await expect(prepared.run({ writes: "none" })).rejects.toMatchObject({ code: "conflict" });
    }
    expect(notes()).toBe("Mira is seventeen.\nThe bell is silent.\n");
  });

  it("a write that would create an empty file still asks", async () => {
    const r = await call("write", { path: "empty.md", content: "" }, "discuss");
    expect(!r.ok && r.error.code).toBe("approval_required");
    expect(existsSync(abs("empty.md"))).toBe(false);
  });
});
