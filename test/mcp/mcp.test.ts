import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveMcpHttp } from "../../src/mcp/http.js";
import { SESSION_BOUND_GROUPS } from "../../src/mcp/tools.js";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { Workspace } from "../../src/workspace/workspace.js";

const BIN = fileURLToPath(new URL("../../bin/nbook", import.meta.url));
let dir: string;
let ws: Workspace;
const clients: Client[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "nbook-mcp-"));
  ws = Workspace.init(join(dir, "ws"));
  ws.createProject("demo", { sample: true });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  ws.close();
  rmSync(dir, { recursive: true, force: true });
});

async function connect(profile: string, mode = "normal", approve?: boolean): Promise<Client> {
  const client = new Client(
    { name: "test", version: "1" },
    approve === undefined ? {} : { capabilities: { elicitation: { form: {} } } },
  );
  if (approve !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      expect(req.params.message).toContain("+");
      return { action: "accept", content: { approve } };
    });
  }
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["mcp", "--workspace", ws.root, "--project", "demo", "--profile", profile, "--mode", mode],
    stderr: "pipe",
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function expected(profile: string): string[] {
  const registry = createToolRegistry();
  const catalog = new ProfileCatalog(registry, ws, ws.project("demo"));
  return [...catalog.allowlist(profile).keys()].filter(
    (k) => !SESSION_BOUND_GROUPS.includes(registry.get(k)!.group),
  );
}

const text = (r: unknown) =>
  ((r as { content: { text: string }[] }).content ?? []).map((c) => c.text).join("");
const lorebookFile = () => join(ws.root, "demo", "lorebook", "index.md");

describe("nbook mcp over stdio", () => {
  it("lists exactly the profile's allowlist minus the session-bound tools, with schemas and annotations", async () => {
    for (const profile of ["writer", "leader.default"]) {
      const c = await connect(profile);
      const { tools } = await c.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(expected(profile).sort());
      const read = tools.find((t) => t.name === "read")!;
      expect(read.inputSchema).toMatchObject({ type: "object", required: ["path"] });
      expect(read.annotations?.readOnlyHint).toBe(true);
      if (profile === "leader.default")
        expect(tools.find((t) => t.name === "write")?.annotations?.destructiveHint).toBe(true);
    }
  });

  it("reads, writes in normal mode, refuses escapes and invalid input as error results", async () => {
    const c = await connect("leader.default");
    const r = await c.callTool({ name: "read", arguments: { path: "lorebook/index.md" } });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain("Lorebook");
    const w = await c.callTool({ name: "write", arguments: { path: "notes/mcp.md", content: "from mcp\n" } });
    expect(w.isError).toBeFalsy();
    expect(readFileSync(join(ws.root, "demo", "notes", "mcp.md"), "utf8")).toBe("from mcp\n");
    const esc = await c.callTool({ name: "read", arguments: { path: "../../etc/passwd" } });
    expect(esc.isError).toBe(true);
    expect(text(esc)).toContain("[path_escape]");
    const bad = await c.callTool({
      name: "edit",
      arguments: { path: "notes/mcp.md", edits: [{ oldText: 1 }] },
    });
    expect(bad.isError).toBe(true);
    expect(
      (bad.structuredContent as { error: { code: string; fields: { pointer: string }[] } }).error,
    ).toMatchObject({
      code: "invalid_input",
      fields: expect.arrayContaining([expect.objectContaining({ pointer: "/edits/0/oldText" })]),
    });
    const notAllowed = await c.callTool({ name: "report_result", arguments: { result: "x" } });
    expect(notAllowed.isError).toBe(true);
  });

  it("in discuss mode refuses a write without elicitation and leaves the file unchanged", async () => {
    const before = readFileSync(lorebookFile(), "utf8");
    const c = await connect("leader.default", "discuss");
    const r = await c.callTool({
      name: "edit",
      arguments: { path: "lorebook/index.md", edits: [{ oldText: "# Lorebook", newText: "# Canon" }] },
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("[approval_required]");
    expect(text(r)).toContain("+# Canon");
    expect(readFileSync(lorebookFile(), "utf8")).toBe(before);
  });

  it("in discuss mode asks through elicitation: decline keeps the file, approve writes it", async () => {
    const before = readFileSync(lorebookFile(), "utf8");
    const edit = {
      name: "edit",
      arguments: { path: "lorebook/index.md", edits: [{ oldText: "# Lorebook", newText: "# Canon" }] },
    };
    const no = await (await connect("leader.default", "discuss", false)).callTool(edit);
    expect(no.isError).toBe(true);
    expect(readFileSync(lorebookFile(), "utf8")).toBe(before);
    const yes = await (await connect("leader.default", "discuss", true)).callTool(edit);
    expect(yes.isError).toBeFalsy();
    expect(readFileSync(lorebookFile(), "utf8")).toContain("# Canon");
  });

  it("gives the writer a read-only World Engine", async () => {
    const c = await connect("writer");
    const probe = await c.callTool({
      name: "execute_world",
      arguments: { code: "return typeof world.slice.write" },
    });
    expect(probe.isError).toBeFalsy();
    expect(text(probe)).toBe("undefined");
    const attempt = await c.callTool({
      name: "execute_world",
      arguments: {
        code: 'world.slice.write({ at: 0, patches: [{ subject: "mira", op: "replace", path: "/age", value: 18 }] }); return "wrote"',
      },
    });
    expect(attempt.isError).toBe(true);
  });

  it("lists and reads lorebook/manuscript resources and the world schema", async () => {
    const c = await connect("writer");
    const { resources } = await c.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toContain("nbook://demo/lorebook/characters/mira-vale/index.md");
    expect(uris).toContain("nbook://demo/manuscript/01-the-drowned-bell/index.md");
    expect(uris).toContain("nbook://demo/world/schema");
    const r = await c.readResource({ uri: "nbook://demo/lorebook/characters/mira-vale/index.md" });
    expect((r.contents[0] as { text: string }).text).toContain("Mira Vale");
    await expect(c.readResource({ uri: "nbook://demo/../../etc/passwd" })).rejects.toThrow();
    await expect(c.readResource({ uri: "nbook://demo/project.yaml" })).rejects.toThrow();
  });
});

describe("nbook mcp over Streamable HTTP", () => {
  it("serves list and call with the bearer token and refuses without it", async () => {
    const registry = createToolRegistry();
    const project = ws.project("demo");
    const h = await serveMcpHttp({
      workspace: ws,
      project,
      registry,
      catalog: new ProfileCatalog(registry, ws, project),
      profileKey: "writer",
      mode: "normal",
      log: () => {},
    });
    try {
      const noToken = await fetch(h.url, {
        method: "POST",
        body: "{}",
        headers: { "content-type": "application/json" },
      });
      expect(noToken.status).toBe(401);
      const wrong = new Client({ name: "t", version: "1" });
      await expect(
        wrong.connect(
          new StreamableHTTPClientTransport(new URL(h.url), {
            requestInit: { headers: { authorization: "Bearer nope" } },
          }),
        ),
      ).rejects.toThrow();
      const c = new Client({ name: "t", version: "1" });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(h.url), {
          requestInit: { headers: { authorization: `Bearer ${h.token}` } },
        }),
      );
      const { tools } = await c.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(expected("writer").sort());
      const r = await c.callTool({ name: "read", arguments: { path: "manuscript/02-low-water/index.md" } });
      expect(text(r)).toContain("Low Water");
      await c.close();
    } finally {
      await h.close();
    }
  });
});
