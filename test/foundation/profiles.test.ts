import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { overrideNotice, overridesBuiltin, ProfileCatalog } from "../../src/profiles/catalog.js";
import { describeProfile } from "../../src/profiles/describe.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed("novel");
});
afterEach(() => bed.cleanup());

const userDir = () => join(bed.ws.nbookDir, "agent", "profiles");
const projectDir = () => join(bed.project.root, ".nbook", "agent", "profiles");
const load = () => new ProfileCatalog(createToolRegistry(), bed.ws, bed.project);

describe("profile catalog", () => {
  it("has the built-in profiles, summarizer system_only", () => {
    const keys = bed.catalog.list().map((p) => p.key);
    for (const k of [
      "leader.default",
      "writer",
      "retrieval",
      "world.engine",
      "inline.editor",
      "director",
      "memory.curator",
      "summarizer",
      "simulator.actor",
      "adhoc",
    ]) {
      expect(keys).toContain(k);
    }
    expect(bed.catalog.get("summarizer").creation).toBe("system_only");
    expect(bed.catalog.get("writer").creation).toBe("public");
  });

  it("gives each built-in the allowlist of the profile table: the writer's world access read-only, no plot writes", () => {
    const keys = (k: string) => [...bed.catalog.allowlist(k).keys()];
    expect(bed.catalog.allowlist("writer").get("execute_world")).toEqual({ access: "readonly" });
    expect(bed.catalog.allowlist("leader.default").get("execute_world")).toEqual({ access: "readwrite" });
    expect(bed.catalog.allowlist("world.engine").get("execute_world")).toEqual({ access: "readwrite" });
    expect(keys("writer").filter((k) => k.startsWith("save_"))).toEqual([]);
    expect(keys("writer")).toEqual(
      expect.arrayContaining(["read", "write", "edit", "bash", "report_result"]),
    );
    expect(keys("leader.default")).not.toContain("report_result");
    expect(keys("retrieval").sort()).toEqual(["bash", "read", "report_result", "search"]);
    expect(keys("inline.editor").sort()).toEqual(["edit", "read", "report_result", "search", "write"]);
    expect(keys("director")).not.toContain("execute_world");
    expect(keys("director")).not.toContain("write");
    for (const k of ["memory.curator", "summarizer"]) expect(keys(k)).toEqual(["report_result"]);
    // An actor reaches only its own subject's memory (enforced by the memory tools).
    expect(keys("simulator.actor")).toEqual(["report_result", "subject_rag_search", "subject_event_append"]);
    for (const k of ["leader.default", "director"])
      expect(keys(k)).toEqual(
        expect.arrayContaining(["subject_rag_search", "subject_event_append", "subject_memory_update"]),
      );
    expect(keys("adhoc").sort()).toEqual(["read", "report_result", "search"]);
  });

  it("layers built-in < user < project by key", () => {
    mkdirSync(projectDir(), { recursive: true });
    writeFileSync(
      join(userDir(), "scout.yaml"),
      "key: scout\nname: Scout (user)\ndescription: reads\ntools: [read]\nprompt: You scout.\n",
    );
    writeFileSync(
      join(projectDir(), "scout.json"),
      JSON.stringify({
        key: "scout",
        name: "Scout (project)",
        tools: ["read", "bash"],
        prompt: "You scout here.",
      }),
    );
    writeFileSync(
      join(userDir(), "writer.yaml"),
      "key: writer\nname: My writer\ntools: [read, write]\nprompt: Write tersely.\n",
    );
    const c = load();
    expect(c.problems).toEqual([]);
    expect(c.get("scout").name).toBe("Scout (project)");
    expect(c.get("scout").source).toBe("project");
    expect([...c.allowlist("scout").keys()]).toEqual(["read", "bash"]);
    expect(c.get("scout").initial.safeParse({}).success).toBe(true);
    expect(c.get("scout").initial.safeParse({ extra: 1 }).success).toBe(false);
    const w = c.get("writer");
    expect(w.source).toBe("user");
    expect([...c.allowlist("writer").keys()]).toEqual(["read", "write"]);
    // Overriding a built-in keeps its schemas.
    expect(w.payload).toBe(bed.catalog.get("writer").payload);
  });

  it("reports an unknown tool or a malformed file with the file, and does not load the profile", () => {
    writeFileSync(
      join(userDir(), "bad-tool.yaml"),
      "key: badtool\nname: Bad\ntools: [read, teleport]\nprompt: x\n",
    );
    writeFileSync(join(userDir(), "broken.yaml"), "key: broken\nname: [unclosed\n");
    writeFileSync(join(userDir(), "missing.json"), JSON.stringify({ key: "missing", tools: [] }));
    const c = load();
    expect(c.has("badtool")).toBe(false);
    expect(c.has("broken")).toBe(false);
    expect(c.has("missing")).toBe(false);
    const byFile = Object.fromEntries(c.problems.map((p) => [p.file, p.message]));
    expect(byFile[".nbook/agent/profiles/bad-tool.yaml"]).toContain("unknown tool teleport");
    // The YAML problem, where, and the text there (not a message cut after "column 1:").
    expect(byFile[".nbook/agent/profiles/broken.yaml"]).toBe(
      "Flow sequence in block collection must be sufficiently indented and end with a ] at line 3, column 1, after: name: [unclosed",
    );
    expect(byFile[".nbook/agent/profiles/missing.json"]).toContain("/name");
  });

  it("describes a profile with JSON Schemas and tool keys", () => {
    const d = describeProfile(bed.catalog.get("retrieval"));
    expect(d.creationMode).toBe("public");
    expect(d.toolKeys).toContain("read");
    expect(d.InitialSchema).toMatchObject({ type: "object", required: ["prompt"] });
    expect(d.OutputSchema).toMatchObject({ type: "object" });
  });
});

describe("profiles without tools", () => {
  it("offers the researcher now that its tools exist, with the research tools (and not the file tools)", async () => {
    expect(bed.catalog.list().map((p) => p.key)).toContain("researcher");
    const allowed = bed.catalog.allowlist("researcher");
    expect(allowed.has("novel_rankings")).toBe(true);
    expect(allowed.has("novel_book_detail")).toBe(true);
    expect(allowed.has("write")).toBe(false);
    const r = await bed.call(
      "novel_rankings",
      { platform: "qidian", board: "yuepiao" },
      { profile: "researcher" },
    );
    expect(r.ok && r.text).toContain("月票榜 (qidian/yuepiao)");
    const refused = await bed.call("write", { path: "x.md", content: "x" }, { profile: "researcher" });
    expect(!refused.ok && refused.error.code).toBe("not_allowed");
    const leader = bed.catalog.allowlist("leader.default");
    expect(leader.has("novel_rankings") && leader.has("novel_book_detail")).toBe(true);
  });

  it("applies to user and project files too (reported, not loaded), and a file giving tools makes a profile usable", () => {
    mkdirSync(projectDir(), { recursive: true });
    writeFileSync(join(userDir(), "idle.yaml"), "key: idle\nname: Idle\ntools: []\nprompt: Wait.\n");
    writeFileSync(
      join(projectDir(), "researcher.yaml"),
      "key: researcher\nname: Local researcher\ntools: [read]\nprompt: Research the lorebook.\n",
    );
    const c = load();
    expect(c.has("idle")).toBe(false);
    expect(c.problems).toEqual([
      {
        file: ".nbook/agent/profiles/idle.yaml",
        message:
          "Profile idle is unavailable: its allowlist has no tools, so an agent with it could do nothing",
      },
    ]);
    expect([...c.allowlist("researcher").keys()]).toEqual(["read"]);
    // It keeps the built-in's schemas, like any override.
    expect(c.get("researcher").initial.safeParse({ topic: "bells" }).success).toBe(true);
  });
});

describe("overriding a built-in profile", () => {
  it("is marked, and the first get announces it once with the tools the built-in lacks", () => {
    mkdirSync(projectDir(), { recursive: true });
    writeFileSync(
      join(projectDir(), "writer.yaml"),
      "key: writer\nname: Wide writer\ntools: [read, write, execute_sql]\nprompt: Write.\n",
    );
    writeFileSync(join(userDir(), "scout.yaml"), "key: scout\nname: Scout\ntools: [read]\nprompt: Scout.\n");
    const notices: string[] = [];
    const c = new ProfileCatalog(createToolRegistry(), bed.ws, bed.project, {
      onOverriddenProfile: (n) => notices.push(n),
    });
    expect(overridesBuiltin(c.get("writer"))).toBe(true);
    expect(overridesBuiltin(c.get("scout"))).toBe(false);
    expect(overridesBuiltin(c.get("retrieval"))).toBe(false);
    c.get("writer");
    c.allowlist("writer");
    expect(notices).toEqual([
      "profile writer is not the built-in one: the project file novel/.nbook/agent/profiles/writer.yaml overrides it with its own prompt and tools (tools the built-in does not have: execute_sql)",
    ]);
    expect(overrideNotice(c.get("retrieval"))).toBeNull();
  });
});

describe("the project's AGENTS.md", () => {
  const ctx = (projectName: string | null) => ({
    projectName,
    projectTitle: null,
    language: "en" as const,
    mode: "normal" as const,
    initial: {},
    toolKeys: ["read"],
  });

  it("ends every profile's system prompt, built-in or from a file", () => {
    writeFileSync(join(bed.project.root, "AGENTS.md"), "# Rules\n\nNever reveal who rang the bell.\n");
    writeFileSync(join(userDir(), "scout.yaml"), "key: scout\nname: Scout\ntools: [read]\nprompt: Scout.\n");
    const c = load();
    for (const p of c.list()) {
      const prompt = p.systemPrompt({
        ...ctx("novel"),
        initial: { systemPrompt: "x", subjectPath: "a", kind: "npc" },
      });
      expect(prompt, p.key).toMatch(
        /## Project instructions \(AGENTS\.md[^\n]*\n# Rules\n\nNever reveal who rang the bell\.$/,
      );
    }
    // Without a project there is nothing to add.
    expect(c.get("writer").systemPrompt(ctx(null))).not.toContain("AGENTS.md");
    // An edit is picked up by the next prompt.
    writeFileSync(join(bed.project.root, "AGENTS.md"), "Second person, present tense.\n");
    expect(c.get("writer").systemPrompt(ctx("novel"))).toContain("Second person, present tense.");
  });

  it("is cut past 12,000 characters at a line end, with a note saying how much is shown", () => {
    const line = "Keep the tone quiet and wet; the bells are never explained in act one.\n";
    const huge = `${line.repeat(1000)}TAIL-MARKER\n`;
    writeFileSync(join(bed.project.root, "AGENTS.md"), huge);
    const prompt = load().get("writer").systemPrompt(ctx("novel"));
    const section = prompt.slice(prompt.indexOf("## Project instructions"));
    expect(section).not.toContain("TAIL-MARKER");
    const shown = Math.floor(12_000 / line.length) * line.length - 1;
    expect(section).toContain(
      `[AGENTS.md is cut here: ${shown.toLocaleString("en-US")} of ${(huge.length - 1).toLocaleString("en-US")} characters shown. Read the rest with the read tool (path AGENTS.md) when the task needs it.]`,
    );
    expect(section.length).toBeLessThan(12_500);
  });

  it("is not followed out of the project through a link", () => {
    const outside = join(bed.dir, "elsewhere.md");
    writeFileSync(outside, "OUTSIDE TEXT\n");
    rmSync(join(bed.project.root, "AGENTS.md"));
    symlinkSync(outside, join(bed.project.root, "AGENTS.md"));
    expect(load().get("writer").systemPrompt(ctx("novel"))).not.toContain("OUTSIDE TEXT");
  });
});

describe("project metadata", () => {
  it("picks up edits to project.yaml", () => {
    expect(bed.project.meta().title).toBe("novel");
    writeFileSync(join(bed.project.root, "project.yaml"), "title: Renamed Novel\nlanguage: zh\n");
    expect(bed.project.meta()).toMatchObject({ title: "Renamed Novel", language: "zh" });
  });
});
