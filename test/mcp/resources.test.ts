import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
