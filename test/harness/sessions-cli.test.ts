import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { renderTranscript, SessionStore } from "../../src/harness/store/index.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { runNbookInProcess } from "../helpers.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FAKE_KEY = "sk-test-NEVER-STORE-4f1c9e7b2a";

let dir: string;
let ids: { chat: string; other: string; approval: string; branchEntry: string };

function nbook(args: string[]) {
  return runNbookInProcess([...args, "--workspace", dir], {
    cwd: ROOT,
    env: { NB_TEST_OPENAI_KEY: FAKE_KEY },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nb-sessions-cli-"));
  const ws = Workspace.init(dir);
  ws.createProject("harbour");
  // A provider whose key lives in the environment: the store must only ever see the model reference.
  writeFileSync(
    join(ws.nbookDir, "config.json"),
    JSON.stringify({
      providers: { openai: { kind: "openai", apiKeyEnv: "NB_TEST_OPENAI_KEY" } },
      models: {},
    }),
  );
  const store = SessionStore.forWorkspace(ws);
  const profile = { key: "leader.default", initial: z.object({}) };
  const chat = store.createSession({
    profile,
    project: "harbour",
    title: "Chapter one",
    model: "openai/gpt-4o-mini",
  });
  const other = store.createSession({ profile, title: "Workspace chat" });
  store.append(other.id, { kind: "user", data: { text: "hello" } });
  const first = store.append(chat.id, { kind: "user", data: { text: "Draft chapter one" } });
  store.append(chat.id, { kind: "assistant", data: { text: "An abandoned first attempt." } });
  store.setLeaf(chat.id, first.id);
  store.commitStep(chat.id, [
    {
      kind: "assistant",
      data: {
        text: "Reading the lorebook.",
        toolCalls: [{ id: "r1", key: "read", input: { path: "lorebook/index.md" } }],
      },
    },
    {
      kind: "tool_result",
      data: { callId: "r1", key: "read", ok: true, text: "# Lore\nThe harbour city of Vell." },
    },
    { kind: "task_list", data: { tasks: [{ id: "1", title: "Outline", status: "in_progress" }] } },
  ]);
  store.changeMode(chat.id, "discuss", "user", "review first");
  const [, request] = store.commitStep(chat.id, [
    {
      kind: "assistant",
      data: { text: "", toolCalls: [{ id: "w1", key: "write", input: { path: "manuscript/ch1.md" } }] },
    },
    {
      kind: "approval_request",
      data: {
        callId: "w1",
        key: "write",
        input: { path: "manuscript/ch1.md" },
        preview: { text: "+It rained on Vell." },
      },
    },
  ]);
  ids = { chat: chat.id, other: other.id, approval: request.id, branchEntry: first.id };
  store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("nbook sessions", () => {
  it("lists sessions, filtered by project, as text and JSON", async () => {
    const text = await nbook(["sessions", "list"]);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("Chapter one");
    expect(text.stdout).toContain("Workspace chat");
    const json = await nbook(["sessions", "list", "--project", "harbour", "--json"]);
    const list = JSON.parse(json.stdout) as { id: string; project: string; mode: string }[];
    expect(list.map((s) => s.id)).toEqual([ids.chat]);
    expect(list[0]).toMatchObject({ project: "harbour", mode: "discuss" });
  });

  it("shows a readable transcript of the active branch with tool results, mode changes and approvals", async () => {
    const r = await nbook(["sessions", "show", ids.chat]);
    expect(r.status).toBe(0);
    const out = r.stdout;
    expect(out).toContain("user: Draft chapter one");
    expect(out).toContain("assistant: Reading the lorebook.");
    expect(out).toMatch(/→ read \{"path":"lorebook\/index.md"\} — ok \(2 lines\): # Lore/);
    expect(out).toContain("tasks: [~] Outline");
    expect(out).toContain("— mode normal → discuss (by user: review first)");
    expect(out).toMatch(/→ write .* — … no result \(pending\)/);
    expect(out).toContain(`! approval ${ids.approval} requested: write — +It rained on Vell.`);
    expect(out).toContain(`nbook approve ${ids.chat} ${ids.approval}`);
    expect(out).not.toContain("abandoned first attempt");
  });

  it("exports Markdown (active branch) and lossless JSONL (every branch)", async () => {
    const md = await nbook(["sessions", "export", ids.chat, "--format", "md"]);
    expect(md.status).toBe(0);
    expect(md.stdout).toMatch(/^# Session \d+: Chapter one/);
    expect(md.stdout).toContain("### Tool call `read` (r1)");
    expect(md.stdout).toContain("The harbour city of Vell.");
    expect(md.stdout).toContain("No result (pending).");
    expect(md.stdout).not.toContain("abandoned first attempt");

    const out = join(dir, "export.jsonl");
    expect((await nbook(["sessions", "export", ids.chat, "--format", "jsonl", "--out", out])).status).toBe(0);
    const lines = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: "session", id: ids.chat, model: "openai/gpt-4o-mini" });
    const entries = lines.filter((l) => l.type === "entry");
    expect(entries).toHaveLength(8);
    expect(entries.filter((e) => e.parentId === ids.branchEntry)).toHaveLength(2);
    expect(lines.filter((l) => l.type === "approval")).toEqual([
      expect.objectContaining({ id: ids.approval, status: "pending", toolKey: "write" }),
    ]);
  });

  it("shows a tool error whole, each field with its pointer", async () => {
    const store = SessionStore.open(join(dir, ".nbook", "agent.sqlite"));
    const s = store.createSession({ profile: { key: "writer", initial: z.object({}) }, title: "Bad edits" });
    const error = (message: string, fields: { pointer: string; message: string }[]) => ({
      code: "invalid_input" as const,
      message,
      fields,
    });
    store.commitStep(s.id, [
      {
        kind: "assistant",
        data: {
          text: "",
          toolCalls: [
            { id: "e1", key: "edit", input: { path: "a.md", edits: [{}] } },
            { id: "w1", key: "write", input: { path: "../x.md", content: "x" } },
          ],
        },
      },
      {
        kind: "tool_result",
        data: {
          callId: "e1",
          key: "edit",
          ok: false,
          text: "invalid_input: Invalid input for edit",
          error: error("Invalid input for edit:\n/edits/0/oldText: required\n/edits/0/newText: required", [
            { pointer: "/edits/0/oldText", message: "required" },
            { pointer: "/edits/0/newText", message: "required" },
          ]),
        },
      },
      {
        kind: "tool_result",
        data: {
          callId: "w1",
          key: "write",
          ok: false,
          text: "invalid_input: The path leaves the project",
          error: error("The path leaves the project", [
            { pointer: "/path", message: "must stay inside the project" },
          ]),
        },
      },
    ]);
    store.close();
    const out = (await nbook(["sessions", "show", s.id])).stdout;
    expect(out).toContain(
      "error [invalid_input]: Invalid input for edit:\n      /edits/0/oldText: required\n      /edits/0/newText: required\n",
    );
    expect(out).toContain(
      "error [invalid_input]: The path leaves the project\n      /path: must stay inside the project\n",
    );
  });

  it("says session ids are numbers when given something else", async () => {
    const r = await nbook(["sessions", "show", "abc"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      'error [not_found]: No session with id "abc": session ids are numbers, such as 1 or 42',
    );
  });

  it("fails with usage errors for unknown sessions and formats", async () => {
    const missing = await nbook(["sessions", "show", "999"]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("not_found");
    const bad = await nbook(["sessions", "export", ids.chat, "--format", "html"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--format must be md or jsonl");
  });

  it("takes --limit as a whole positive number only", async () => {
    expect(JSON.parse((await nbook(["sessions", "list", "--limit", "1", "--json"])).stdout)).toHaveLength(1);
    for (const limit of ["3x", "1.5", "0"]) {
      const r = await nbook(["sessions", "list", "--limit", limit]);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain("--limit must be a positive integer");
    }
  });

  it("never stores or exports the API key, only the model reference", async () => {
    const exports = [
      (await nbook(["sessions", "export", ids.chat, "--format", "jsonl"])).stdout,
      (await nbook(["sessions", "export", ids.chat, "--format", "md"])).stdout,
      (await nbook(["sessions", "show", ids.chat, "--json"])).stdout,
    ];
    const files = ["agent.sqlite", "agent.sqlite-wal"].map((f) => join(dir, ".nbook", f)).filter(existsSync);
    expect(files.length).toBeGreaterThan(0);
    const haystacks = [...exports, ...files.map((f) => readFileSync(f).toString("latin1"))];
    expect(haystacks.join("\n")).toContain("openai/gpt-4o-mini");
    for (const h of haystacks) expect(h).not.toContain(FAKE_KEY);
  });

  it("streams a long branch page by page as it renders whole, and shows one page with --limit/--before", async () => {
    const store = SessionStore.open(join(dir, ".nbook", "agent.sqlite"));
    const s = store.createSession({ profile: { key: "writer", initial: z.object({}) }, title: "Long" });
    // Steps of three entries against pages of 500: many steps straddle a page boundary.
    for (let i = 0; i < 700; i++) {
      store.commitStep(s.id, [
        {
          kind: "assistant",
          data: { text: `step ${i}`, toolCalls: [{ id: `c${i}`, key: "read", input: {} }] },
        },
        { kind: "tool_result", data: { callId: `c${i}`, key: "read", ok: true, text: `result ${i}` } },
        { kind: "user", data: { text: `next ${i}` } },
      ]);
    }
    const whole = renderTranscript(store.session(s.id), store.activePath(s.id));
    const newest = store.page(s.id, { limit: 3 });
    store.close();
    const streamed = await nbook(["sessions", "show", s.id]);
    expect(streamed.status).toBe(0);
    expect(streamed.stdout).toBe(whole);
    expect(streamed.stdout).not.toContain("no result (pending)");

    const page = await nbook(["sessions", "show", s.id, "--limit", "3"]);
    expect(page.stdout).toContain(`(earlier entries: nbook sessions show ${s.id} --before ${newest.older})`);
    expect(page.stdout).toContain("assistant: step 699\n  → read {} — ok: result 699\nuser: next 699\n");
    expect(page.stdout).not.toContain("698");
    const json = JSON.parse(
      (await nbook(["sessions", "show", s.id, "--limit", "3", "--before", newest.older!, "--json"])).stdout,
    );
    expect(json.page.entries.map((e: { kind: string }) => e.kind)).toEqual([
      "assistant",
      "tool_result",
      "user",
    ]);
    expect(json.page.newer).toBe(json.page.entries[2].id);
    expect(json.page.older).toBe(json.page.entries[0].id);
    expect(json.path).toBeUndefined();
    const bad = await nbook(["sessions", "show", s.id, "--limit", "501"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--limit must be a whole number from 1 to 500");
  });
});
