import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEvents, type ServeFixture, serveFixture } from "./fixture.js";

let fx: ServeFixture;
beforeAll(async () => {
  fx = await serveFixture({ sample: true, script: [{ text: "Hello." }] });
});
afterAll(async () => {
  await fx.close();
});

type Json = Record<string, unknown>;
const get = async (path: string) => {
  const res = await fx.api("GET", path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as Json;
};

describe("projects", () => {
  it("lists projects with title, language and last activity; creates one from the sample (announced) and opens it", async () => {
    const events = await fx.api("GET", "/api/events");
    const list = (await get("/api/projects")) as { projects: Json[] };
    expect(list.projects).toEqual([
      expect.objectContaining({ name: "novel", language: "en", lastActivity: expect.any(String) }),
    ]);
    const created = await fx.api("POST", "/api/projects", {
      name: "saga",
      title: "The Long Tide",
      language: "zh",
      sample: true,
    });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { project: Json }).project).toMatchObject({
      name: "saga",
      title: "The Long Tide",
      language: "zh",
    });
    const seen = await readEvents(events.body as ReadableStream<Uint8Array>, (e) => e.length >= 1);
    expect(seen[0]).toMatchObject({ event: "project_created", data: { project: { name: "saga" } } });
    // The sample's world and plot came with it.
    const subjects = (await get("/api/projects/saga/world/subjects")) as { subjects: unknown[] };
    expect(subjects.subjects.length).toBeGreaterThan(0);
    const dup = await fx.api("POST", "/api/projects", { name: "saga" });
    expect(dup.status).toBe(409);
    const open = (await (await fx.api("POST", "/api/projects/saga/open")).json()) as { project: Json };
    expect(open.project.title).toBe("The Long Tide");
  });
});

describe("world", () => {
  it("a subject's state at two calendar times differs as the story moves", async () => {
    const early = await get(
      `/api/projects/novel/world/subjects/mira/state?at=${encodeURIComponent("12 Fog 91 AL, 12:30")}`,
    );
    const late = await get(
      `/api/projects/novel/world/subjects/mira/state?at=${encodeURIComponent("13 Fog 91 AL, 08:00")}`,
    );
    expect(early).toMatchObject({ id: "mira", type: "character", at: "12 Fog 91 AL, 12:30" });
    expect(JSON.stringify(late.state)).not.toEqual(JSON.stringify(early.state));
    expect(JSON.stringify(late.state)).toContain("page");
  });

  it("schema, subjects, history with calendar times, slices, issues", async () => {
    const schema = (await get("/api/projects/novel/world/schema")) as { calendar: Json; schema: Json };
    expect(schema.calendar).toHaveProperty("kind");
    const subjects = (await get("/api/projects/novel/world/subjects?type=character")) as { subjects: Json[] };
    expect(subjects.subjects.map((s) => s.id)).toContain("mira");
    const history = (await get("/api/projects/novel/world/subjects/mira/history")) as { history: Json[] };
    expect(history.history.length).toBeGreaterThan(1);
    expect(history.history[0].time).toMatch(/AL/);
    const slices = (await get("/api/projects/novel/world/slices?subject=mira&limit=2&patches=true")) as {
      slices: { patches: unknown[]; time: string }[];
    };
    expect(slices.slices.length).toBe(2);
    expect(slices.slices[0].patches.length).toBeGreaterThan(0);
    const issues = (await get("/api/projects/novel/world/issues")) as { issues: unknown[] };
    expect(Array.isArray(issues.issues)).toBe(true);
  });

  it("a time that is not in the project's calendar is invalid_input pointing at the query field", async () => {
    const res = await fx.api("GET", "/api/projects/novel/world/subjects/mira/state?at=yesterday");
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { fields: Json[] } };
    expect(body.error.fields).toEqual([
      { pointer: "/query/at", message: "not a time in the project's calendar" },
    ]);
  });
});

describe("plot", () => {
  it("tree, chapter, the writer brief, promises and decisions", async () => {
    const tree = (await get("/api/projects/novel/plot/tree")) as {
      acts: { chapters: { id: number; title: string }[] }[];
    };
    const chapter = tree.acts[0].chapters[1];
    expect(chapter.title).toBe("Low Water");
    const detail = (await get(`/api/projects/novel/plot/chapters/${chapter.id}`)) as {
      chapter: Json;
      scenes: unknown[];
    };
    expect(detail.chapter.title).toBe("Low Water");
    const brief = (await get(`/api/projects/novel/plot/chapters/${chapter.id}/brief`)) as {
      markdown: string;
    };
    expect(brief.markdown).toContain("# Chapter Writer Brief");
    const promises = (await get("/api/projects/novel/plot/promises?status=open")) as { rows: unknown[] };
    expect(promises.rows.length).toBe(2);
    const decisions = (await get("/api/projects/novel/plot/decisions")) as { rows: unknown[] };
    expect(decisions.rows.length).toBeGreaterThan(0);
    expect((await fx.api("GET", "/api/projects/novel/plot/chapters/9999")).status).toBe(404);
  });
});

describe("models, profiles, skills", () => {
  it("lists what is configured and which keys are missing; profiles; skills with SKILL.md", async () => {
    const models = await get("/api/models?project=novel");
    expect(models).toHaveProperty("providers");
    expect(models).toHaveProperty("missingEnv");
    const profiles = (await get("/api/profiles")) as { profiles: Json[] };
    expect(profiles.profiles.map((p) => p.key)).toContain("leader.default");
    const writer = await get("/api/profiles/writer");
    expect(writer.toolKeys).toContain("write");
    const skills = (await get("/api/skills?project=novel")) as { skills: Json[] };
    expect(skills.skills.map((s) => s.name)).toContain("keep-canon");
    const skill = (await get("/api/skills/keep-canon")) as { text: string };
    expect(skill.text).toContain("name: keep-canon");
  });
});

describe("sessions", () => {
  it("list, tree, tasks, a prompt that completes, abort of an idle session", async () => {
    const created = (await (
      await fx.api("POST", "/api/projects/novel/sessions", { title: "Talk" })
    ).json()) as {
      session: { id: string; profileKey: string };
    };
    expect(created.session.profileKey).toBe("leader.default");
    const id = created.session.id;
    const list = (await get("/api/projects/novel/sessions")) as { sessions: Json[] };
    expect(list.sessions.map((s) => s.id)).toContain(id);
    const tree = await get(`/api/sessions/${id}/tree`);
    expect(tree).toMatchObject({ session: { id }, detached: false, children: [] });
    // Agents the session created (collaboration) hang under it, and theirs under them.
    const writer = fx.hub.harness("novel").catalog.get("writer");
    const child = fx.hub.store.createSession({ profile: writer, project: "novel", parentSessionId: id });
    const grandchild = fx.hub.store.createSession({
      profile: writer,
      project: "novel",
      parentSessionId: child.id,
    });
    const deep = (await get(`/api/sessions/${id}/tree`)) as {
      children: { session: { id: string }; children: { session: { id: string } }[] }[];
    };
    expect(deep.children.map((c) => c.session.id)).toEqual([child.id]);
    expect(deep.children[0].children.map((c) => c.session.id)).toEqual([grandchild.id]);
    const forest = (await get("/api/projects/novel/sessions/tree")) as {
      tree: { session: { id: string }; children: { session: { id: string } }[] }[];
    };
    const root = forest.tree.find((n) => n.session.id === id);
    expect(root?.children.map((c) => c.session.id)).toEqual([child.id]);
    expect(forest.tree.some((n) => n.session.id === child.id)).toBe(false);
    expect(await get(`/api/sessions/${id}/tasks`)).toEqual({ tasks: [] });
    const res = await fx.api("POST", `/api/sessions/${id}/prompt`, { message: "Hi" });
    expect(res.status).toBe(202);
    await fx.hub.idle();
    const t = (await get(`/api/sessions/${id}/transcript`)) as {
      entries: { kind: string }[];
      running: boolean;
    };
    expect(t.running).toBe(false);
    expect(t.entries.map((e) => e.kind)).toEqual(["run_start", "user", "assistant", "run_end"]);
    expect(await (await fx.api("POST", `/api/sessions/${id}/abort`)).json()).toEqual({ aborted: false });
    const unknownProfile = await fx.api("POST", "/api/projects/novel/sessions", { profile: "nobody" });
    expect(unknownProfile.status).toBe(404);
    // Checked by the profile's own schema, past the route's: the pointer still leads into the body.
    const initial = await fx.api("POST", "/api/projects/novel/sessions", {
      profile: "researcher",
      initial: { bogus: 1 },
    });
    expect(initial.status).toBe(400);
    expect(((await initial.json()) as { error: { fields: unknown[] } }).error.fields).toEqual([
      { pointer: "/body/initial/bogus", message: "unknown field" },
    ]);
  });
});
