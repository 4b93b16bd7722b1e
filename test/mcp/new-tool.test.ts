import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Mode } from "../../src/core/modes.js";
import { createMcpServer } from "../../src/mcp/server.js";
import { loadedToolSet } from "../../src/mcp/tool-set.js";
import { ProfileCatalog } from "../../src/profiles/catalog.js";
import { BUILTIN_TOOLS } from "../../src/tools/builtin.js";
import { defineTool } from "../../src/tools/define.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { makeTestBed, type TestBed } from "../helpers.js";
import { errorOf, textOf } from "./fixture.js";

/** A tool no MCP code knows about, as a later issue would add one. */
const noteTool = defineTool({
  key: "pin_note",
  group: "files",
  description: "Pin a note to the project board.",
  input: z.object({ text: z.string().min(1).describe("The note") }).strict(),
  effect: "write",
  prepare: (input) => ({
    effect: "write",
    targets: null,
    preview: () => ({ text: `would pin: ${input.text}` }),
    run: async () => ({ text: `pinned: ${input.text}` }),
  }),
});

let bed: TestBed;
let registry: ToolRegistry;
beforeAll(() => {
  bed = makeTestBed("demo");
  registry = new ToolRegistry([...BUILTIN_TOOLS, noteTool]);
  const dir = join(bed.ws.nbookDir, "agent", "profiles");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "scribe.yaml"),
    "key: scribe\nname: Scribe\ntools: [read, pin_note, report_result]\nprompt: You pin notes.\n",
  );
});
afterAll(() => bed.cleanup());

/** An in-process server for profile `scribe` and a client connected to it. */
async function connect(mode: Mode): Promise<Client> {
  const catalog = new ProfileCatalog(registry, bed.ws, bed.project);
  const server = createMcpServer({
    workspace: bed.ws,
    project: bed.project,
    tools: loadedToolSet(registry, catalog, "scribe"),
    catalog,
    profileKey: "scribe",
    mode,
    log: () => {},
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(b);
  return client;
}

describe("a tool added after the MCP server was written", () => {
  it("is offered, described, validated, run and gated without any MCP change", async () => {
    const c = await connect("normal");
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(["read", "pin_note"]);
    const pin = tools.find((t) => t.name === "pin_note")!;
    expect(pin.description).toBe("Pin a note to the project board.");
    expect(pin.inputSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } } });
    expect(pin.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(textOf(await c.callTool({ name: "pin_note", arguments: { text: "hi" } }))).toBe("pinned: hi");
    const bad = await c.callTool({ name: "pin_note", arguments: { text: "" } });
    expect(errorOf(bad)).toMatchObject({ code: "invalid_input", fields: [{ pointer: "/text" }] });
    await c.close();

    const discuss = await connect("discuss");
    const gated = await discuss.callTool({ name: "pin_note", arguments: { text: "hi" } });
    expect(errorOf(gated).code).toBe("approval_required");
    expect(textOf(gated)).toContain("would pin: hi");
    await discuss.close();
  });
});
