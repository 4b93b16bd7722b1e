import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorOf, type McpBed, mcpBed, textOf } from "./fixture.js";

let m: McpBed;
/** A discuss-mode client without elicitation. */
let plain: Client;
/** A discuss-mode client with elicitation: it answers `answer` and records each message. */
let asking: Client;
let answer = false;
const asked: string[] = [];
/** Runs while the user looks at a prompt (a hand edit, say), before the answer goes back. */
let meanwhile: (() => void) | null = null;

beforeAll(async () => {
  m = mcpBed();
  plain = await m.connect({ mode: "discuss" });
  asking = await m.connect({
    mode: "discuss",
    elicit: (message) => {
      asked.push(message);
      meanwhile?.();
      meanwhile = null;
      return answer;
    },
  });
});
afterAll(() => m.close());

const lorebookFile = () => join(m.bed.project.root, "lorebook", "index.md");
const edit = {
  name: "edit",
  arguments: { path: "lorebook/index.md", edits: [{ oldText: "# Lorebook", newText: "# Canon" }] },
};

/** One SELECT through the trusted in-process dispatch. */
async function sql(statement: string): Promise<unknown[]> {
  const r = await m.bed.call("execute_sql", { sql: statement });
  if (!r.ok) throw new Error(r.error.message);
  return (r.details as { rows: unknown[] }).rows;
}

/** Ask `asking` to run one call, answering the approval with `yes`; the one message it was shown. */
async function askOnce(call: { name: string; arguments: Record<string, unknown> }, yes: boolean) {
  answer = yes;
  asked.length = 0;
  const r = await asking.callTool(call);
  expect(asked).toHaveLength(1);
  return { r, message: asked[0] };
}

describe("nbook mcp in a read-only mode", () => {
  it("in discuss mode refuses a write without elicitation and leaves the file unchanged", async () => {
    const before = readFileSync(lorebookFile(), "utf8");
    const r = await plain.callTool(edit);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("[approval_required]");
    expect(textOf(r)).toContain("+# Canon");
    expect(errorOf(r).details).toMatchObject({
      tool: "edit",
      preview: { text: expect.stringContaining("+# Canon") },
    });
    expect(readFileSync(lorebookFile(), "utf8")).toBe(before);
    const read = await plain.callTool({ name: "read", arguments: { path: "lorebook/index.md" } });
    expect(read.isError).toBeFalsy();
  });

  it("in discuss mode asks through elicitation: decline keeps the file, approve writes it", async () => {
    const before = readFileSync(lorebookFile(), "utf8");
    const no = await askOnce(edit, false);
    expect(no.message).toContain("+# Canon");
    expect(no.r.isError).toBe(true);
    expect(errorOf(no.r).code).toBe("approval_required");
    expect(readFileSync(lorebookFile(), "utf8")).toBe(before);
    const yes = await askOnce(edit, true);
    expect(yes.r.isError).toBeFalsy();
    expect(readFileSync(lorebookFile(), "utf8")).toContain("# Canon");
  });

  it("previews an execute_sql write with its row count and runs it only once approved", async () => {
    for (const name of ["tide", "bell"])
      expect((await m.bed.call("save_story_thread", { action: "create", name, title: name })).ok).toBe(true);
    const update = { name: "execute_sql", arguments: { sql: "UPDATE story_thread SET title = 'Renamed'" } };
    const titles = () => sql("SELECT title FROM story_thread ORDER BY id");

    const select = await plain.callTool({
      name: "execute_sql",
      arguments: { sql: "SELECT count(*) AS n FROM story_thread" },
    });
    expect(select.isError).toBeFalsy();
    const refused = await plain.callTool(update);
    expect(errorOf(refused).code).toBe("approval_required");
    expect(textOf(refused)).toContain("UPDATE would change 2 rows");
    expect(await titles()).toEqual([{ title: "tide" }, { title: "bell" }]);

    const declined = await askOnce(update, false);
    expect(declined.message).toContain("UPDATE would change 2 rows");
    expect(errorOf(declined.r).code).toBe("approval_required");
    expect(await titles()).toEqual([{ title: "tide" }, { title: "bell" }]);

    const approved = await askOnce(update, true);
    expect(approved.r.isError).toBeFalsy();
    expect(textOf(approved.r)).toContain("2 rows changed.");
    expect(await titles()).toEqual([{ title: "Renamed" }, { title: "Renamed" }]);
  });

  it("asks before a save_story_* call and creates the row only once approved", async () => {
    const create = {
      name: "save_story_thread",
      arguments: { action: "create", name: "mist", title: "Mist" },
    };
    const mist = () => sql("SELECT title FROM story_thread WHERE name = 'mist'");
    expect(errorOf(await plain.callTool(create)).code).toBe("approval_required");
    const declined = await askOnce(create, false);
    expect(declined.message).toContain("save_story_thread create → a new thread");
    expect(declined.message).toContain('title = "Mist"');
    expect(await mist()).toEqual([]);
    const approved = await askOnce(create, true);
    expect(approved.r.isError).toBeFalsy();
    expect(await mist()).toEqual([{ title: "Mist" }]);
  });

  it("dry-runs a writing execute_world script, shows its slices, and stores them only once approved", async () => {
    const code = `world.slice.write({ time: 100, title: "the flood", patches: [
      { subjectId: "wren", type: "character", name: "Wren", path: "/hp", op: "replace", value: 7 } ] });
      return "written"`;
    const call = { name: "execute_world", arguments: { code } };
    const wren = async () => {
      const r = await plain.callTool({
        name: "execute_world",
        arguments: { code: 'return String(world.subject.get("wren")?.hp)' },
      });
      expect(r.isError).toBeFalsy();
      return textOf(r);
    };
    const refused = await plain.callTool(call);
    expect(errorOf(refused).code).toBe("approval_required");
    expect(textOf(refused)).toContain("the script would make 1 change");
    expect(textOf(refused)).toContain('"the flood"');
    expect(await wren()).toBe("undefined");
    const approved = await askOnce(call, true);
    expect(approved.message).toContain('"the flood"');
    expect(approved.r.isError).toBeFalsy();
    expect(textOf(approved.r)).toContain("written");
    expect(await wren()).toBe("7");
  });

  it("a hand edit while the prompt is open is kept: the approved edit answers conflict with a fresh diff", async () => {
    const file = join(m.bed.project.root, "notes-mcp.md");
    writeFileSync(file, "Mira is seventeen.\n");
    const call = {
      name: "edit",
      arguments: { path: "notes-mcp.md", edits: [{ oldText: "seventeen", newText: "eighteen" }] },
    };
    meanwhile = () => writeFileSync(file, "Mira is seventeen.\nThe user's line.\n");
    const { r } = await askOnce(call, true);
    expect(errorOf(r).code).toBe("conflict");
    expect(textOf(r)).toContain("notes-mcp.md changed after the preview the user approved");
    expect(readFileSync(file, "utf8")).toBe("Mira is seventeen.\nThe user's line.\n");
  });

  it("does not offer a change whose preview a prompt cannot show whole, and says how long it is", async () => {
    const content = `${"The tide rose over the bell road.\n".repeat(700)}The hidden tail.\n`;
    const call = { name: "write", arguments: { path: "notes/long.md", content } };
    answer = true;
    asked.length = 0;
    const r = await asking.callTool(call);
    expect(asked).toEqual([]);
    expect(errorOf(r).code).toBe("approval_required");
    expect(textOf(r)).toMatch(/not offered for approval.*preview is 24,\d{3} characters.*at most 20,000/s);
    expect(existsSync(join(m.bed.project.root, "notes", "long.md"))).toBe(false);
    // A change that fits is shown whole, to its last line.
    const short = await askOnce(
      { name: "write", arguments: { path: "notes/short.md", content: "The tail.\n" } },
      false,
    );
    expect(short.message).toContain("+The tail.");
  });

  it("a write that changes nothing runs without asking", async () => {
    const same = readFileSync(lorebookFile(), "utf8");
    asked.length = 0;
    const r = await asking.callTool({
      name: "write",
      arguments: { path: "lorebook/index.md", content: same },
    });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain("Unchanged: lorebook/index.md");
    expect(asked).toEqual([]);
  });

  it("in plan mode lets .agent/plan/*.md be written and gates any other write", async () => {
    const planner = await m.connect({ mode: "plan" });
    const ok = await planner.callTool({
      name: "write",
      arguments: { path: ".agent/plan/next.md", content: "- draft\n" },
    });
    expect(ok.isError).toBeFalsy();
    expect(readFileSync(join(m.bed.project.root, ".agent", "plan", "next.md"), "utf8")).toBe("- draft\n");
    const gated = await planner.callTool({
      name: "write",
      arguments: { path: "notes/plan.md", content: "x" },
    });
    expect(errorOf(gated).code).toBe("approval_required");
    expect(existsSync(join(m.bed.project.root, "notes", "plan.md"))).toBe(false);
  });
});
