import { readFileSync } from "node:fs";
import { join } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { errorOf, expectedTools, type McpBed, mcpBed, textOf } from "./fixture.js";

let m: McpBed;
beforeAll(() => {
  m = mcpBed();
});
afterAll(() => m.close());

/** The protocol error a call was answered with (it fails the test when the call succeeds or returns a result). */
async function unknownToolError(call: Promise<unknown>): Promise<McpError> {
  const e = await call.then(
    (r) => r,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(McpError);
  return e as McpError;
}

const SESSION_TOOLS = [
  "report_result",
  "switch_mode",
  "request_user_input",
  "task_create",
  "task_set_status",
  "create_agent",
  "invoke_agent",
  "list_jobs",
  // Its group is not session-bound, but it is: a workflow's agents are the calling session's children.
  "run_workflow",
];

describe("nbook mcp over stdio: tools", () => {
  it("lists exactly the profile's allowlist minus the session-bound tools, with schemas and annotations", async () => {
    const registry = createToolRegistry();
    for (const profile of ["writer", "leader.default"]) {
      const c = await m.connect({ profile });
      const { tools } = await c.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(expectedTools(m.bed, profile));
      for (const key of SESSION_TOOLS) expect(tools.map((t) => t.name)).not.toContain(key);
      const allow = m.bed.catalog.allowlist(profile);
      for (const t of tools) {
        const spec = registry.spec(t.name, allow.get(t.name));
        expect(t.description).toBe(spec.description);
        expect(t.inputSchema).toEqual(spec.inputSchema);
      }
      const read = tools.find((t) => t.name === "read")!;
      expect(read.inputSchema).toMatchObject({ type: "object", required: ["path"] });
      expect(read.annotations?.readOnlyHint).toBe(true);
      const world = tools.find((t) => t.name === "execute_world")!;
      if (profile === "writer") {
        expect(world.annotations?.readOnlyHint).toBe(true);
        expect(world.description).toMatch(/read-only/i);
        const bound = await unknownToolError(
          c.callTool({ name: "report_result", arguments: { summary: "x" } }),
        );
        expect(bound).toMatchObject({ code: -32602, data: { code: "not_allowed" } });
        expect(bound.message).toContain("needs a NeuroBook agent session");
      }
      if (profile === "leader.default") {
        expect(tools.find((t) => t.name === "write")?.annotations?.destructiveHint).toBe(true);
        expect(world.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
        expect(tools.find((t) => t.name === "execute_sql")?.annotations?.readOnlyHint).toBe(false);
        expect(tools.find((t) => t.name === "get_story_tree")?.annotations?.readOnlyHint).toBe(true);
        expect(tools.map((t) => t.name)).toContain("list_workflows");
        expect(tools.find((t) => t.name === "save_story_thread")?.annotations?.destructiveHint).toBe(true);
      }
    }
  });

  it("reads, writes in normal mode, refuses escapes and invalid input as error results", async () => {
    // No --profile and no --mode: leader.default in normal mode.
    const c = await m.connect({ args: [] });
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(expectedTools(m.bed, "leader.default"));
    const r = await c.callTool({ name: "read", arguments: { path: "lorebook/index.md" } });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain("Lorebook");
    const w = await c.callTool({ name: "write", arguments: { path: "notes/mcp.md", content: "from mcp\n" } });
    expect(w.isError).toBeFalsy();
    expect(readFileSync(join(m.bed.project.root, "notes", "mcp.md"), "utf8")).toBe("from mcp\n");
    const esc = await c.callTool({ name: "read", arguments: { path: "../../etc/passwd" } });
    expect(esc.isError).toBe(true);
    expect(textOf(esc)).toContain("[path_escape]");
    const bad = await c.callTool({
      name: "edit",
      arguments: { path: "notes/mcp.md", edits: [{ oldText: 1 }] },
    });
    expect(bad.isError).toBe(true);
    expect(errorOf(bad)).toMatchObject({
      code: "invalid_input",
      fields: expect.arrayContaining([expect.objectContaining({ pointer: "/edits/0/oldText" })]),
    });
    expect(textOf(bad)).toContain("/edits/0/oldText");
  });

  it("answers a tool it does not offer with the protocol error -32602 (invalid params), saying why", async () => {
    const c = await m.connect({});
    const cases: [string, string, string][] = [
      ["no_such_tool", "not_found", "Unknown tool: no_such_tool"],
      ["report_result", "not_allowed", "Tool report_result is not allowed for profile leader.default"],
      ["task_create", "not_allowed", "Tool task_create needs a NeuroBook agent session"],
    ];
    // A tool the profile's allowlist leaves out is not offered either (the writer has no SQL).
    const writer = await m.connect({ profile: "writer" });
    const sql = await unknownToolError(
      writer.callTool({ name: "execute_sql", arguments: { sql: "SELECT 1" } }),
    );
    expect(sql).toMatchObject({ code: -32602, data: { code: "not_allowed" } });
    expect(sql.message).toContain("Tool execute_sql is not allowed for profile writer");
    for (const [name, code, message] of cases) {
      const e = await unknownToolError(c.callTool({ name, arguments: {} }));
      expect(e.code, name).toBe(-32602);
      expect((e.data as { code: string }).code, name).toBe(code);
      expect(e.message, name).toContain(message);
      expect(e.message, name).toContain("tools/list");
    }
  });

  it("answers every refused call with the same code and message as the agents' dispatch", async () => {
    const cases: [string, string, Record<string, unknown>][] = [
      ["leader.default", "read", { path: "../../etc/passwd" }],
      ["leader.default", "read", { path: "/etc/passwd" }],
      ["leader.default", "read", { path: "lorebook/missing.md" }],
      ["leader.default", "write", { path: "../escape.md", content: "x" }],
      ["leader.default", "edit", { path: "notes/mcp.md", edits: [{ oldText: 1 }] }],
      ["leader.default", "execute_sql", { sql: "ATTACH 'other.sqlite' AS o" }],
      ["leader.default", "execute_sql", { sql: "CREATE TABLE t(a)" }],
      ["leader.default", "execute_sql", { sql: "SELECT 1; SELECT 2" }],
      ["leader.default", "execute_sql", { sql: "SELECT * FROM world_subjects" }],
      ["leader.default", "save_story_thread", { action: "update", title: "no id" }],
      ["writer", "write", { path: "workspace/nope/x.md", content: "x" }],
    ];
    const clients = new Map<string, Awaited<ReturnType<McpBed["connect"]>>>();
    for (const [profile, key, input] of cases) {
      if (!clients.has(profile)) clients.set(profile, await m.connect({ profile }));
      const over = await clients.get(profile)!.callTool({ name: key, arguments: input });
      const direct = await m.bed.call(key, input, { profile });
      expect(direct.ok, `${profile} ${key}`).toBe(false);
      if (direct.ok) continue;
      expect(over.isError, `${profile} ${key}`).toBe(true);
      expect(errorOf(over), `${profile} ${key}`).toEqual(direct.error);
      expect(textOf(over)).toBe(`[${direct.error.code}] ${direct.error.message}`);
      expect(textOf(over)).not.toContain(m.bed.dir);
    }
  });

  it("keeps execute_sql's row limit", async () => {
    const c = await m.connect({});
    const r = await c.callTool({
      name: "execute_sql",
      arguments: {
        sql: "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 500) SELECT x FROM n",
      },
    });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as { details: unknown }).details).toMatchObject({
      rowCount: 200,
      truncated: true,
    });
    expect(textOf(r)).toContain("truncated: more rows exist");
  });

  it("gives the writer a read-only World Engine", async () => {
    const c = await m.connect({ profile: "writer" });
    const probe = await c.callTool({
      name: "execute_world",
      arguments: { code: "return typeof world.slice.write" },
    });
    expect(probe.isError).toBeFalsy();
    expect(textOf(probe)).toBe("undefined");
    const code =
      'world.slice.write({ time: 0, patches: [{ subjectId: "mira", type: "character", path: "/age", op: "replace", value: 18 }] }); return "wrote"';
    const attempt = await c.callTool({ name: "execute_world", arguments: { code } });
    expect(attempt.isError).toBe(true);
    const direct = await m.bed.call("execute_world", { code }, { profile: "writer" });
    expect(direct.ok).toBe(false);
    if (!direct.ok) expect(errorOf(attempt)).toEqual(direct.error);
    const after = await c.callTool({
      name: "execute_world",
      arguments: { code: 'return String(world.subject.get("mira"))' },
    });
    expect(textOf(after)).toBe("null");
  });
});
