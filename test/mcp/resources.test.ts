import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpServer } from "../../src/mcp/server.js";
import { loadedToolSet } from "../../src/mcp/tool-set.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { type McpBed, mcpBed } from "./fixture.js";

let m: McpBed;
beforeAll(() => {
  m = mcpBed();
  m.bed.ws.createProject("other", { sample: true });
  const secret = join(m.bed.dir, "secret.md");
  writeFileSync(secret, "# secret\n");
  symlinkSync(secret, join(m.bed.project.root, "lorebook", "link.md"));
});
afterAll(() => m.close());

/** The JSON-RPC code and NeuroBook code a failed read answers with. */
async function readFailure(uri: string, client: Awaited<ReturnType<McpBed["connect"]>>) {
  const e = await client.readResource({ uri }).then(
    () => null,
    (err: unknown) => err,
  );
  expect(e, uri).toBeInstanceOf(McpError);
  const err = e as McpError;
  expect(err.message).not.toContain(m.bed.dir);
  return { code: err.code, nbCode: (err.data as { code: string }).code };
}

describe("nbook mcp resources", () => {
  it("lists and reads lorebook/manuscript resources and the world schema", async () => {
    const c = await m.connect({ profile: "writer" });
    const { resources } = await c.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain("nbook://demo/lorebook/characters/mira-vale/index.md");
    expect(uris).toContain("nbook://demo/manuscript/01-the-drowned-bell/index.md");
    expect(uris).toContain("nbook://demo/world/schema");
    expect(uris).not.toContain("nbook://demo/lorebook/link.md");
    expect(uris.every((u) => u.startsWith("nbook://demo/"))).toBe(true);
    const r = await c.readResource({ uri: "nbook://demo/lorebook/characters/mira-vale/index.md" });
    expect(r.contents[0]).toMatchObject({
      mimeType: "text/markdown",
      text: expect.stringContaining("Mira Vale"),
    });
    const schema = await c.readResource({ uri: "nbook://demo/world/schema" });
    expect((schema.contents[0] as { text: string }).text).toBe(
      readFileSync(join(m.bed.project.root, "world-engine", "schema.yaml"), "utf8"),
    );
    await expect(c.readResource({ uri: "nbook://demo/../../etc/passwd" })).rejects.toThrow();
    await expect(c.readResource({ uri: "nbook://demo/project.yaml" })).rejects.toThrow();
  });

  it("refuses anything outside this project's lorebook and manuscript with a stable error", async () => {
    const c = await m.connect({});
    expect(await readFailure("nbook://demo/lorebook/missing.md", c)).toEqual({
      code: -32002,
      nbCode: "not_found",
    });
    expect(await readFailure("nbook://demo/project.yaml", c)).toEqual({ code: -32002, nbCode: "not_found" });
    expect(await readFailure("nbook://other/lorebook/index.md", c)).toEqual({
      code: -32002,
      nbCode: "not_found",
    });
    expect(await readFailure("nbook://demo/workspace/other/lorebook/index.md", c)).toEqual({
      code: -32002,
      nbCode: "not_found",
    });
    expect(await readFailure("nbook://demo/lorebook/%2E%2E/%2E%2E/other/lorebook/index.md", c)).toEqual({
      code: -32602,
      nbCode: "path_escape",
    });
    expect(await readFailure("nbook://demo/lorebook/link.md", c)).toEqual({
      code: -32602,
      nbCode: "path_escape",
    });
    expect(await readFailure("nbook://demo/lorebook/%E0%A4%A.md", c)).toEqual({
      code: -32602,
      nbCode: "invalid_input",
    });
    expect(await readFailure("file:///etc/passwd", c)).toEqual({ code: -32602, nbCode: "invalid_input" });
  });
});

/** A client connected in-process to an MCP server for the sample project as `profileKey`. */
async function inProcess(profileKey: string): Promise<Client> {
  const server = createMcpServer({
    workspace: m.bed.ws,
    project: m.bed.project,
    tools: loadedToolSet(createToolRegistry(), m.bed.catalog, profileKey),
    catalog: m.bed.catalog,
    profileKey,
    mode: "normal",
    log: () => {},
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(b);
  return client;
}

describe("nbook mcp resources follow the profile", () => {
  it("a profile without read lists no resources and reads none", async () => {
    const c = await inProcess("memory.curator");
    try {
      expect((await c.listResources()).resources).toEqual([]);
      for (const uri of [
        "nbook://demo/manuscript/01-the-drowned-bell/index.md",
        "nbook://demo/world/schema",
      ]) {
        const e = await c.readResource({ uri }).then(
          () => null,
          (err: unknown) => err as McpError,
        );
        expect(e, uri).toBeInstanceOf(McpError);
        expect((e!.data as { code: string }).code).toBe("not_allowed");
        expect(e!.message).toContain("Profile memory.curator has no read tool");
      }
      const reader = await inProcess("adhoc");
      expect((await reader.listResources()).resources.length).toBeGreaterThan(3);
      await reader.close();
    } finally {
      await c.close();
    }
  });

  it("answers resources/templates/list: a template per folder for a profile that reads, none otherwise", async () => {
    const reader = await inProcess("writer");
    const none = await inProcess("memory.curator");
    try {
      const { resourceTemplates } = await reader.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
        "nbook://demo/lorebook/{+path}",
        "nbook://demo/manuscript/{+path}",
      ]);
      expect(resourceTemplates.every((t) => t.mimeType === "text/markdown")).toBe(true);
      const uri = new UriTemplate(resourceTemplates[0].uriTemplate).expand({
        path: "characters/mira-vale/index.md",
      });
      const r = await reader.readResource({ uri });
      expect((r.contents[0] as { text: string }).text).toContain("Mira Vale");
      expect((await none.listResourceTemplates()).resourceTemplates).toEqual([]);
    } finally {
      await reader.close();
      await none.close();
    }
  });

  it("the server's instructions carry the project's AGENTS.md", async () => {
    const c = await inProcess("writer");
    try {
      const instructions = c.getInstructions() ?? "";
      expect(instructions).toContain("as profile writer");
      expect(instructions).toContain("## Project instructions (AGENTS.md");
      expect(instructions).toContain("The bells are never explained outright in the first act.");
    } finally {
      await c.close();
    }
  });
});
