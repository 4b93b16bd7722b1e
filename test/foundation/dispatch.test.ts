import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { defineTool } from "../../src/tools/define.js";
import { dispatch, isPlanExempt } from "../../src/tools/dispatch.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed("novel");
  writeFileSync(join(bed.project.root, "lorebook", "mira.md"), "Mira is seventeen.\n");
});
afterEach(() => bed.cleanup());

const file = () => readFileSync(join(bed.project.root, "lorebook", "mira.md"), "utf8");

describe("defineTool", () => {
  const base = {
    key: "probe",
    group: "files" as const,
    description: "test tool",
    effect: "read" as const,
    execute: () => ({ text: "" }),
  };

  it("accepts a strict object input and refuses anything that would drop unknown fields silently", () => {
    expect(defineTool({ ...base, input: z.object({ a: z.string() }).strict() }).key).toBe("probe");
    expect(() => defineTool({ ...base, input: z.object({ a: z.string() }) })).toThrow(/strict/);
    expect(() => defineTool({ ...base, input: z.object({}).loose() })).toThrow(/strict/);
    expect(() => defineTool({ ...base, input: z.string() })).toThrow(/strict/);
  });

  it("refuses a tool without a declared effect or with a key that is not snake_case", () => {
    const input = z.object({}).strict();
    expect(() => defineTool({ ...base, input, effect: undefined as never })).toThrow(/effect/);
    expect(() => defineTool({ ...base, input, key: "Probe-Tool" })).toThrow(/snake_case/);
  });
});

describe("dispatch: validation", () => {
  it("answers invalid_input with a JSON Pointer per bad field", async () => {
    const r = await bed.call("edit", { path: 3, edits: [{ oldText: "" }], extra: true });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("invalid_input");
    const pointers = r.error.fields?.map((f) => f.pointer).sort();
    expect(pointers).toEqual(["/edits/0/newText", "/edits/0/oldText", "/extra", "/path"]);
    expect(r.error.fields?.find((f) => f.pointer === "/edits/0/newText")?.message).toBe("required");
  });

  it("answers not_found for an unknown tool", async () => {
    const r = await bed.call("frobnicate", {});
    expect(!r.ok && r.error.code).toBe("not_found");
  });
});

describe("dispatch: allowlists", () => {
  it("refuses a tool outside the profile's allowlist and does not run it", async () => {
    // retrieval may read and run bash, but not write.
    const r = await bed.call(
      "write",
      { path: "lorebook/mira.md", content: "changed" },
      { profile: "retrieval" },
    );
    expect(!r.ok && r.error.code).toBe("not_allowed");
    // An approval settles the mode gate, never the allowlist.
    const approved = await bed.call(
      "write",
      { path: "lorebook/mira.md", content: "changed" },
      { profile: "retrieval", mode: "discuss", approved: true },
    );
    expect(!approved.ok && approved.error.code).toBe("not_allowed");
    expect(file()).toBe("Mira is seventeen.\n");
    const ok = await bed.call("read", { path: "lorebook/mira.md" }, { profile: "retrieval" });
    expect(ok.ok).toBe(true);
  });

  it("gives no profile every tool", () => {
    const registered = createToolRegistry().keys();
    for (const p of bed.catalog.list()) {
      const allowed = bed.catalog.allowlist(p.key);
      expect(registered.some((k) => !allowed.has(k))).toBe(true);
    }
  });
});

describe("dispatch: mode gate", () => {
  const writes = [
    { key: "write", input: { path: "lorebook/mira.md", content: "Mira is eighteen.\n" } },
    {
      key: "edit",
      input: { path: "lorebook/mira.md", edits: [{ oldText: "seventeen", newText: "eighteen" }] },
    },
    {
      key: "apply_patch",
      input: {
        patch:
          "*** Begin Patch\n*** Update File: lorebook/mira.md\n@@\n-Mira is seventeen.\n+Mira is eighteen.\n*** End Patch",
      },
    },
  ];

  for (const mode of ["discuss", "plan"] as const) {
    for (const w of writes) {
      it(`${mode} mode stops ${w.key} with a diff preview and changes nothing`, async () => {
        const r = await bed.call(w.key, w.input, { mode });
        expect(r.ok).toBe(false);
        if (r.ok) return;
        expect(r.error.code).toBe("approval_required");
        const preview = (r.error.details as { preview: { text: string } }).preview.text;
        expect(preview).toContain("-Mira is seventeen.");
        expect(preview).toContain("+Mira is eighteen.");
        expect(file()).toBe("Mira is seventeen.\n");
      });
    }
  }

  it("discuss mode lets read run and stops bash, like any write, with the command as preview", async () => {
    const r = await bed.call("read", { path: "lorebook/mira.md" }, { mode: "discuss" });
    expect(r.ok && r.text).toContain("seventeen");
    const b = await bed.call("bash", { command: "cat lorebook/mira.md" }, { mode: "discuss" });
    expect(!b.ok && b.error.code).toBe("approval_required");
    expect(!b.ok && b.error.message).toContain("$ cat lorebook/mira.md");
  });

  it("an explicit approval runs that one call in a read-only mode", async () => {
    const r = await bed.call("edit", writes[1].input, { mode: "discuss", approved: true });
    expect(r.ok).toBe(true);
    expect(file()).toBe("Mira is eighteen.\n");
  });

  it("plan mode lets Markdown writes under .agent/plan/ through, and nothing else", async () => {
    const ok = await bed.call(
      "write",
      { path: ".agent/plan/next.md", content: "# Plan\n" },
      { mode: "plan" },
    );
    expect(ok.ok).toBe(true);
    expect(existsSync(join(bed.project.root, ".agent/plan/next.md"))).toBe(true);
    const moved = await bed.call(
      "apply_patch",
      {
        patch:
          "*** Begin Patch\n*** Update File: .agent/plan/next.md\n*** Move to: .agent/plan/final.md\n@@\n-# Plan\n+# Final plan\n*** End Patch",
      },
      { mode: "plan" },
    );
    expect(moved.ok).toBe(true);
    for (const path of [".agent/plan/next.txt", ".agent/plan/../escape.md", "notes/plan.md"]) {
      const r = await bed.call("write", { path, content: "x" }, { mode: "plan" });
      expect(!r.ok && r.error.code).toBe("approval_required");
    }
    const escaping = await bed.call(
      "apply_patch",
      {
        patch:
          "*** Begin Patch\n*** Update File: .agent/plan/final.md\n*** Move to: notes/escaped.md\n@@\n-# Final plan\n+x\n*** End Patch",
      },
      { mode: "plan" },
    );
    expect(!escaping.ok && escaping.error.code).toBe("approval_required");
    const inDiscuss = await bed.call(
      "write",
      { path: ".agent/plan/d.md", content: "x" },
      { mode: "discuss" },
    );
    expect(!inDiscuss.ok && inDiscuss.error.code).toBe("approval_required");
  });

  it("plan mode judges the exemption on the real path, so a symlink under .agent/plan/ opens nothing else", async () => {
    symlinkSync(join(bed.project.root, "lorebook"), join(bed.project.root, ".agent", "plan", "canon"));
    symlinkSync(
      join(bed.project.root, "lorebook", "mira.md"),
      join(bed.project.root, ".agent", "plan", "mira.md"),
    );
    for (const path of [".agent/plan/canon/mira.md", ".agent/plan/canon/new.md", ".agent/plan/mira.md"]) {
      const r = await bed.call("write", { path, content: "Mira is eighteen.\n" }, { mode: "plan" });
      expect(!r.ok && r.error.code).toBe("approval_required");
    }
    const edit = await bed.call(
      "edit",
      { path: ".agent/plan/canon/mira.md", edits: [{ oldText: "seventeen", newText: "eighteen" }] },
      { mode: "plan" },
    );
    expect(!edit.ok && edit.error.code).toBe("approval_required");
    expect(file()).toBe("Mira is seventeen.\n");
    expect(existsSync(join(bed.project.root, "lorebook", "new.md"))).toBe(false);
  });

  it("judges plan targets lexically and fails closed", () => {
    expect(isPlanExempt([".agent/plan/a.md", "./.agent/plan/sub/b.MD"])).toBe(true);
    expect(isPlanExempt(null)).toBe(false);
    expect(isPlanExempt([])).toBe(false);
    expect(isPlanExempt([".agent/plan/a.md", "lorebook/x.md"])).toBe(false);
    expect(isPlanExempt(["/abs/.agent/plan/a.md"])).toBe(false);
    expect(isPlanExempt([".agent/plan/.md/../x.md"])).toBe(false);
  });
});

describe("dispatch: results", () => {
  const echo = defineTool({
    key: "echo_lines",
    group: "files",
    description: "test tool",
    input: z.object({ lines: z.number().int(), fail: z.boolean().optional() }).strict(),
    effect: "per-call",
    prepare: (input) => ({
      effect: input.lines < 0 ? "write" : "read",
      targets: null,
      run: async () => {
        if (input.fail) throw new Error(`boom at ${bed.project.root}/secret`);
        return {
          text: Array.from({ length: input.lines }, (_, i) => `line ${i}`).join("\n"),
          details: { n: input.lines },
        };
      },
    }),
  });
  const run = (input: unknown, mode: "normal" | "discuss" = "normal") =>
    dispatch(
      { key: "echo_lines", input },
      {
        registry: new ToolRegistry([echo]),
        workspace: bed.ws,
        project: bed.project,
        mode,
        profileKey: null,
        allow: "all",
      },
    );

  it("caps model text at 2,000 lines with a continuation hint and keeps details whole", async () => {
    const r = await run({ lines: 5000 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.truncated).toBe(true);
    expect(r.text.split("\n").length).toBeLessThanOrEqual(2001);
    expect(r.text).toContain("[Output truncated");
    expect(r.details).toEqual({ n: 5000 });
  });

  it("caps model text at 50 KiB too", async () => {
    const wide = defineTool({
      key: "wide_lines",
      group: "files",
      description: "test tool",
      input: z.object({}).strict(),
      effect: "read",
      execute: () => ({ text: Array.from({ length: 200 }, () => "w".repeat(1023)).join("\n") }),
    });
    const r = await dispatch(
      { key: "wide_lines", input: {} },
      {
        registry: new ToolRegistry([wide]),
        workspace: bed.ws,
        project: bed.project,
        mode: "normal",
        profileKey: null,
        allow: "all",
      },
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.truncated).toBe(true);
    const body = r.text.slice(0, r.text.lastIndexOf("\n[Output truncated"));
    expect(Buffer.byteLength(body, "utf8")).toBeLessThanOrEqual(50 * 1024);
    expect(body.split("\n")).toHaveLength(50);
    expect(r.text).toContain("showing 50 of 200 lines");
  });

  it("caps error messages like any model-facing text, keeping every field error", async () => {
    const edits = Array.from({ length: 5000 }, (_, i) => ({ oldText: `absent ${i}`, newText: "x" }));
    const r = await bed.call("edit", { path: "lorebook/mira.md", edits });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("invalid_input");
    expect(Buffer.byteLength(r.error.message, "utf8")).toBeLessThan(51 * 1024);
    expect(r.error.message).toContain("[Output truncated");
    expect(r.error.fields).toHaveLength(5000);
  });

  it("turns thrown errors into values without host paths or stack traces", async () => {
    const r = await run({ lines: 1, fail: true });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("internal");
    expect(r.error.message).not.toContain(bed.dir);
    expect(r.error.message).not.toMatch(/\n\s+at /);
  });

  it("decides a dynamic effect per call", async () => {
    expect((await run({ lines: 2 }, "discuss")).ok).toBe(true);
    const w = await run({ lines: -1 }, "discuss");
    expect(!w.ok && w.error.code).toBe("approval_required");
  });

  it("generates the model's JSON Schema from the zod schema", () => {
    const reg = new ToolRegistry([echo]);
    const s = reg.inputSchema("echo_lines") as {
      type: string;
      required: string[];
      additionalProperties: boolean;
    };
    expect(s.type).toBe("object");
    expect(s.required).toEqual(["lines"]);
    expect(s.additionalProperties).toBe(false);
  });
});
