import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorInfo } from "../src/core/errors.js";
import { createToolRegistry } from "../src/tools/builtin.js";
import { type DispatchContext, dispatch } from "../src/tools/dispatch.js";
import type { ToolPreview } from "../src/tools/types.js";
import { runWorldScript, WORLD_SCRIPT_TIMEOUT_MS } from "../src/world/script/run.js";
import { openWorld } from "../src/world/world.js";
import { makeTestBed, type TestBed } from "./helpers.js";

let bed: TestBed;

beforeAll(() => {
  bed = makeTestBed("novel");
});
afterAll(() => bed.cleanup());

const world = () => openWorld(bed.project);

/** A script that writes one slice for a new character at `time`. */
const writeHero = (time: number, id = "hero") => `
  const r = world.slice.write({ time: ${time}, title: "arrival of ${id}", patches: [
    { subjectId: "${id}", type: "character", name: "Hero", path: "/hp", op: "replace", value: 90 },
    { subjectId: "${id}", path: "/inventory", op: "append", value: "sword" },
  ]});
  return r.sliceId;`;

async function ok(r: ReturnType<TestBed["call"]>) {
  const out = await r;
  if (!out.ok) throw new Error(`expected ok, got ${out.error.code}: ${out.error.message}`);
  return out;
}

describe("execute_world", () => {
  it("runs a script against the world: string results verbatim, other values as pretty JSON", async () => {
    const w = await ok(bed.call("execute_world", { code: writeHero(1000) }));
    const sliceId = w.text;
    expect(world().slice.get(sliceId).patches.length).toBeGreaterThanOrEqual(2);

    const s = await ok(bed.call("execute_world", { code: "return 'hp ' + world.subject.get('hero').hp" }));
    expect(s.text).toBe("hp 90");
    expect(s.details).toMatchObject({ data: "hp 90", issues: [], console: [] });

    const j = await ok(
      bed.call("execute_world", {
        code: "console.log('looking'); return { inv: world.subject.get('hero').inventory, now: world.time.now() }",
      }),
    );
    expect(j.text).toBe(`${JSON.stringify({ inv: ["sword"], now: 1000 }, null, 2)}\n\nconsole:\nlooking`);
  });

  it("says when a script returns nothing; the API has only its grouped names", async () => {
    const none = await ok(bed.call("execute_world", { code: "world.subject.list();" }));
    expect(none.text).toBe("Done (the script returned nothing).");
    const names = await ok(
      bed.call("execute_world", {
        code: "return [typeof world.writeSlice, typeof world.getMany, typeof world.slice.write, Object.keys(world).sort()]",
      }),
    );
    expect(names.details).toMatchObject({
      data: [
        "undefined",
        "undefined",
        "function",
        ["issues", "schema", "search", "slice", "subject", "time"],
      ],
    });
  });

  it("refuses a result over 10 KiB with the limit in the message, and keeps nothing it wrote", async () => {
    const r = await bed.call("execute_world", {
      code: `world.slice.write({ time: 1500, patches: [{ subjectId: "hero", path: "/hp", op: "replace", value: 1 }] });
             return "x".repeat(20000);`,
    });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("limit_exceeded");
      expect(r.error.message).toContain("the limit is 10240 (10 KiB)");
    }
    expect(world().slice.list({ from: 1500, to: 1500 })).toEqual([]);
  });

  it("exposes time, subjects, history, slices, search and schema synchronously", async () => {
    const r = await ok(
      bed.call("execute_world", {
        code: `
          const t = world.time.parse(world.time.format(1000));
          return {
            roundTrip: t,
            list: world.subject.list("character").map(s => s.id),
            gets: world.subject.gets(["hero", "ghost"]).map(x => x && x.hp),
            history: world.subject.history("hero", { path: "/hp" }).map(h => h.value),
            slices: world.slice.list({ limit: 5 }).map(s => s.instant),
            search: world.search.text("nothing-matches-this"),
            types: world.schema.describe().types.map(t => t.type).includes("character"),
            refs: world.subject.findRefs("hero"),
          };`,
      }),
    );
    expect(r.details).toMatchObject({
      data: {
        roundTrip: 1000,
        list: ["hero"],
        gets: [90, null],
        history: [100, 90],
        slices: [1000],
        search: [],
        types: true,
        refs: [],
      },
    });
  });

  it("a throw rolls back every write of the script", async () => {
    const before = world().slice.list().length;
    const r = await bed.call("execute_world", {
      code: `${writeHero(2000, "villain").replace("return r.sliceId;", "")}\nthrow new Error("changed my mind");`,
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("invalid_input");
    expect(r.error.message).toMatch(/^Script failed at line \d+: Error: changed my mind$/);
    expect(world().slice.list().length).toBe(before);
    expect(world().subject.info("villain")).toBeNull();
  });

  it("a same-instant conflict inside a script rolls back the earlier write too", async () => {
    const r = await bed.call("execute_world", {
      code: `
        world.slice.write({ time: 3000, patches: [{ subjectId: "hero", path: "/hp", op: "replace", value: 50 }] });
        world.slice.write({ time: 1000, patches: [{ subjectId: "hero", path: "/hp", op: "replace", value: 1 }] });`,
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe("conflict");
    expect(world().slice.list({ from: 3000, to: 3000 })).toEqual([]);
    expect(world().subject.get("hero")?.hp).toBe(90);
  });

  it("a timeout rolls back what the script wrote", async () => {
    const run = runWorldScript(
      bed.project,
      `world.slice.write({ time: 4000, patches: [{ subjectId: "hero", path: "/hp", op: "replace", value: 10 }] });
       while (true) {}`,
      { access: "readwrite", timeoutMs: 200 },
    );
    await expect(run).rejects.toMatchObject({ code: "timeout" });
    expect(world().slice.list({ from: 4000, to: 4000 })).toEqual([]);
    expect(WORLD_SCRIPT_TIMEOUT_MS).toEqual({ readonly: 5000, readwrite: 15000 });
  });

  it("each write is its own savepoint: a caught failing write leaves nothing behind", async () => {
    const r = await ok(
      bed.call("execute_world", {
        code: `
          let error = null;
          try {
            world.slice.write({ time: 5000, patches: [
              { subjectId: "newcomer", type: "character", path: "/hp", op: "replace", value: 5 },
              { subjectId: "newcomer", path: "/hp", op: "append", value: "not a list" },
            ]});
          } catch (e) { error = e.code; }
          world.slice.write({ time: 5001, patches: [{ subjectId: "hero", path: "/hp", op: "increment", value: 1 }] });
          return { error, newcomer: world.subject.info("newcomer"), at5000: world.slice.list({ from: 5000, to: 5000 }).length };`,
      }),
    );
    expect(r.details).toMatchObject({ data: { error: "invalid_input", newcomer: null, at5000: 0 } });
    expect(world().subject.info("newcomer")).toBeNull();
    expect(world().subject.get("hero")?.hp).toBe(91);
  });

  it("reports the issues its writes caused", async () => {
    const r = await ok(
      bed.call("execute_world", {
        code: `
          world.slice.write({ time: 100, patches: [
            { subjectId: "mage", type: "character", path: "/hp", op: "replace", value: 10 }] });
          world.slice.write({ time: 200, patches: [{ subjectId: "mage", path: "/hp", op: "increment", value: 5 }] });
          world.slice.write({ time: 150, patches: [{ subjectId: "mage", path: "/hp", op: "replace", value: 40 }] });
          return "moved";`,
      }),
    );
    const issues = (r.details as { issues: Array<{ label: string }> }).issues;
    expect(issues.map((i) => i.label)).toEqual(["A1"]);
    expect(r.text).toMatch(/^moved\n\nissues caused by this script \(1\):\n- A1 advisory at mage\/hp /);
  });
});

describe("execute_world read-only access (the writer)", () => {
  it("the writer's profile binds execute_world read-only", () => {
    expect(bed.catalog.allowlist("writer").get("execute_world")).toEqual({ access: "readonly" });
    expect(bed.catalog.allowlist("leader.default").get("execute_world")).toEqual({ access: "readwrite" });
    expect(bed.catalog.allowlist("world.engine").get("execute_world")).toEqual({ access: "readwrite" });
  });

  it("has no write functions at all and can still read", async () => {
    const r = await ok(
      bed.call(
        "execute_world",
        {
          code: `return [typeof world.slice.write, typeof world.slice.editPatches, typeof world.slice.delete,
                   typeof world.writeSlice, typeof world.slice.get, world.subject.get("hero").hp]`,
        },
        { profile: "writer" },
      ),
    );
    expect(r.details).toMatchObject({
      data: ["undefined", "undefined", "undefined", "undefined", "function", 91],
    });

    const w = await bed.call(
      "execute_world",
      {
        code: `world.slice.write({ time: 9000, patches: [{ subjectId: "hero", path: "/hp", op: "replace", value: 1 }] })`,
      },
      { profile: "writer" },
    );
    expect(w.ok).toBe(false);
    if (!w.ok) expect(w.error.message).toContain("TypeError");
    expect(world().slice.list({ from: 9000, to: 9000 })).toEqual([]);
  });

  it("cannot reach writes through the sandbox's globals either", async () => {
    const r = await ok(
      bed.call(
        "execute_world",
        {
          code: `const g = (function () {}).constructor("return this")();
                 return Object.getOwnPropertyNames(g.world.slice).sort().join(",")`,
        },
        { profile: "writer" },
      ),
    );
    expect(r.text).toBe("get,list");
  });

  it("its description does not mention the write functions", () => {
    const registry = createToolRegistry();
    const readonly = registry.spec("execute_world", { access: "readonly" }).description;
    const readwrite = registry.spec("execute_world", { access: "readwrite" }).description;
    expect(readonly).toContain("READ-ONLY");
    expect(readonly).not.toMatch(/slice\.write|editPatches|slice\.delete/);
    expect(readwrite).toContain("world.slice.write(");
  });
});

describe("execute_world in a read-only mode", () => {
  const code = `
    world.slice.write({ time: 7000, title: "the duel", patches: [
      { subjectId: "hero", path: "/hp", op: "increment", value: -30, summary: "wounded" },
    ]});
    return "hero wounded";`;

  it("raises an approval with a dry-run preview of the slices and patches, and stores nothing", async () => {
    const r = await bed.call("execute_world", { code }, { profile: "leader.default", mode: "discuss" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("approval_required");
    expect(r.error.message).toContain("the script would make 1 change:\n- write slice ");
    expect(r.error.message).toContain('"the duel" (1 patch)');
    expect(r.error.message).toContain("hero increment /hp -30  # wounded");
    const preview = (r.error.details as { preview: { details: { writes: unknown[]; data: unknown } } })
      .preview;
    expect(preview.details.writes).toHaveLength(1);
    expect(preview.details.data).toBe("hero wounded");
    expect(world().slice.list({ from: 7000, to: 7000 })).toEqual([]);
    expect(world().subject.get("hero")?.hp).toBe(91);
  });

  it("approving runs it for real", async () => {
    const r = await ok(
      bed.call("execute_world", { code }, { profile: "leader.default", mode: "discuss", approved: true }),
    );
    expect(r.text).toBe("hero wounded");
    expect(world().slice.list({ from: 7000, to: 7000 })).toHaveLength(1);
    expect(world().subject.get("hero")?.hp).toBe(61);
  });

  it("a read-write script that only reads needs no approval", async () => {
    const r = await ok(
      bed.call(
        "execute_world",
        { code: "return String(world.subject.get('hero').hp)" },
        { profile: "leader.default", mode: "plan" },
      ),
    );
    expect(r.text).toBe("61");
  });
});

describe("execute_world approval of a preview", () => {
  const registry = createToolRegistry();
  /** A leader.default call in discuss mode; approved against `basis` when one is given. */
  const call = (code: string, approval?: { basis: unknown }) => {
    const dctx: DispatchContext = {
      registry,
      workspace: bed.ws,
      project: bed.project,
      mode: "discuss",
      profileKey: "leader.default",
      allow: bed.catalog.allowlist("leader.default"),
      ...(approval ? { approved: true, approvedBasis: approval.basis } : {}),
    };
    return dispatch({ key: "execute_world", input: { code } }, dctx);
  };
  const preview = async (code: string): Promise<ToolPreview> => {
    const r = await call(code);
    if (r.ok) throw new Error("expected an approval");
    expect(r.error.code).toBe("approval_required");
    return (r.error.details as { preview: ToolPreview }).preview;
  };
  const failure = async (r: ReturnType<typeof call>): Promise<ErrorInfo> => {
    const out = await r;
    if (out.ok) throw new Error(`expected a failure, got: ${out.text}`);
    return out.error;
  };
  const patchesAt = (time: number) =>
    world()
      .slice.list({ from: time, to: time, withPatches: true })
      .flatMap((s) => (s.patches ?? []).map(({ patchId: _, ...p }) => p));

  it("shows the script and its writes, and an approval stores exactly what the preview showed", async () => {
    // Time and randomness differ between two runs; a new slice (random id) is then edited.
    const code = `
      const r = world.slice.write({ time: 7500, title: "scouting", patches: [
        { subjectId: "scout", type: "character", path: "/seen", op: "replace", value: Date.now() },
        { subjectId: "scout", path: "/luck", op: "replace", value: Math.random() },
      ]});
      world.slice.editPatches(r.sliceId, [{ add: { subjectId: "scout", path: "/stamp", op: "replace", value: String(new Date().getTime()) } }]);
      return "scouted";`;
    const p = await preview(code);
    expect(p.text).toContain("the script would make 2 changes:\n- write slice ");
    const shown = (p.details as { writes: Array<{ patches: Array<Record<string, unknown>> }> }).writes[1]
      .patches;
    expect(patchesAt(7500)).toEqual([]);

    const r = await call(code, { basis: p.basis });
    expect(r.ok).toBe(true);
    expect(patchesAt(7500)).toEqual(shown.map(({ patchId: _, ...rest }) => rest));
    expect(p.text).toContain(`script:\n${code}`);
  });

  it("refuses with conflict and changes nothing when the world changed since the preview", async () => {
    const luck = (time: number, value: number) =>
      world().slice.write({
        time,
        patches: [{ subjectId: "ranger", type: "character", path: "/luck", op: "replace", value }],
      });
    luck(7540, 10);
    const code = `
      const luck = world.subject.get("ranger").luck;
      world.slice.write({ time: 7600, patches: [{ subjectId: "ranger", path: "/luck", op: "replace", value: luck / 2 }] });`;
    const p = await preview(code);
    expect(p.text).toContain("ranger replace /luck 5");
    luck(7550, 8);

    const e = await failure(call(code, { basis: p.basis }));
    expect(e.code).toBe("conflict");
    expect(e.message).toContain(
      "The script no longer makes the writes its preview showed (1 change); nothing was stored.",
    );
    expect(e.message).toContain("Now it would make 1 change:");
    expect(e.message).toContain("ranger replace /luck 4");
    expect(patchesAt(7600)).toEqual([]);
    expect(world().subject.get("ranger")?.luck).toBe(8);
  });

  it("a script that would delete what it finds on its second run is refused, not run", async () => {
    // The preview wrote one slice; by approval time another writer added one at 7700, which the
    // script would now delete instead.
    const code = `
      const later = world.slice.list({ from: 7700 });
      for (const s of later) world.slice.delete(s.id);
      if (!later.length) world.slice.write({ time: 7800, patches: [{ subjectId: "tracker", type: "character", path: "/hp", op: "replace", value: 60 }] });`;
    const p = await preview(code);
    expect(p.text).toContain("the script would make 1 change:");
    world().slice.write({
      time: 7700,
      patches: [{ subjectId: "tracker", type: "character", path: "/hp", op: "replace", value: 70 }],
    });
    const e = await failure(call(code, { basis: p.basis }));
    expect(e.code).toBe("conflict");
    expect(e.message).toContain("Now it would make 1 change:\n- delete slice ");
    expect(
      world()
        .slice.list({ from: 7700 })
        .map((s) => s.instant),
    ).toEqual([7700]);
  });

  it("refuses a basis it did not make", async () => {
    const code = `world.slice.write({ time: 7900, patches: [{ subjectId: "lookout", type: "character", path: "/hp", op: "replace", value: 1 }] });`;
    const e = await failure(call(code, { basis: { writes: "anything" } }));
    expect(e.code).toBe("conflict");
    expect(patchesAt(7900)).toEqual([]);
  });
});

describe("execute_world runs off the main thread", () => {
  /** True when another connection can take world.sqlite's write lock at once. */
  const writeLockFree = () => {
    const db = new Database(bed.project.dbPath("world"));
    try {
      db.pragma("busy_timeout = 0");
      db.exec("BEGIN IMMEDIATE; ROLLBACK");
      return true;
    } catch {
      return false;
    } finally {
      db.close();
    }
  };
  const bomb = `world.slice.write({ time: 8100, patches: [{ subjectId: "hero", path: "/hp", op: "replace", value: 1 }] });
    return Array.prototype.indexOf.call({ length: 2 ** 40 }, 1);`;

  it("a builtin that ignores the interrupt is killed at the deadline; what it wrote is rolled back", async () => {
    const run = runWorldScript(bed.project, bomb, { access: "readwrite", timeoutMs: 300 });
    await expect(run).rejects.toMatchObject({ code: "timeout", message: "Script timed out after 0.3 s" });
    expect(writeLockFree()).toBe(true);
    expect(world().slice.list({ from: 8100, to: 8100 })).toEqual([]);
    const next = await runWorldScript(bed.project, "return world.subject.get('hero').hp", {
      access: "readonly",
    });
    expect(next.value).toBe(61);
  });

  it("an abort kills the script's worker and rolls back what it wrote", async () => {
    const ctl = new AbortController();
    const run = runWorldScript(bed.project, bomb, { access: "readwrite", signal: ctl.signal });
    // Aborted once the script holds its write transaction (the lock is taken by its first write).
    while (writeLockFree()) await new Promise((r) => setTimeout(r, 20));
    ctl.abort();
    await expect(run).rejects.toMatchObject({ code: "aborted" });
    expect(writeLockFree()).toBe(true);
    expect(world().slice.list({ from: 8100, to: 8100 })).toEqual([]);
  });
});

describe("execute_world isolation between calls", () => {
  it("pollution of builtins and of the world object does not outlive the call", async () => {
    const polluted = await ok(
      bed.call("execute_world", {
        code: `Object.prototype.hp = -1;
               Array.prototype.map = null;
               try { world.subject.get = () => ({ hp: "fake" }); } catch (e) {}
               globalThis.leftover = true;
               return String(world.subject.get("hero").hp);`,
      }),
    );
    expect(polluted.text).toBe("61");
    const clean = await ok(
      bed.call("execute_world", {
        code: `return [({}).hp, typeof leftover, [1].map(x => x + 1), world.subject.get("ghost")]`,
      }),
    );
    expect(clean.details).toMatchObject({ data: [null, "undefined", [2], null] });
  });
});

describe("execute_world input and errors", () => {
  it("rejects unknown fields and empty code", async () => {
    const r = await bed.call("execute_world", { code: "", extra: 1 });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("invalid_input");
      expect(r.error.fields?.map((f) => f.pointer).sort()).toEqual(["/code", "/extra"]);
    }
  });

  it("names a missing project and needs one", async () => {
    const r = await bed.call("execute_world", { code: "return 1", project: "nope" });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe("not_found");
    const none = await bed.call("execute_world", { code: "return 1" }, { project: null });
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.error.code).toBe("invalid_input");
  });

  it("never shows host paths in errors", async () => {
    const r = await bed.call("execute_world", { code: "world.time.parse('not a date at all')" });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.message).not.toContain(bed.dir);
      expect(r.error.message).toMatch(/^Script failed at line 1: /);
    }
  });
});
