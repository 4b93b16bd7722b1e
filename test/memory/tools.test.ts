import { createHash } from "node:crypto";
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Mode } from "../../src/core/modes.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { type DispatchContext, dispatch } from "../../src/tools/dispatch.js";
import type { ChangeRecord } from "../../src/tools/pipeline/record.js";
import type { DispatchResult, ToolPreview } from "../../src/tools/types.js";
import { makeTestBed, type TestBed } from "../helpers.js";

let bed: TestBed;
const registry = createToolRegistry();
beforeEach(() => {
  bed = makeTestBed("novel");
});
afterEach(() => bed.cleanup());

const abs = (p: string) => join(bed.project.root, p);
const A = "simulation/subjects/mira";
const B = "simulation/subjects/lin";

interface CallOpts {
  mode?: Mode;
  profile?: string;
  /** The session's initial values (an actor's subject binding). */
  initial?: Record<string, unknown>;
  approved?: { basis: unknown };
}

function call(key: string, input: unknown, o: CallOpts = {}): Promise<DispatchResult> {
  const dctx: DispatchContext = {
    registry,
    workspace: bed.ws,
    project: bed.project,
    mode: o.mode ?? "normal",
    profileKey: o.profile ?? null,
    allow: o.profile ? bed.catalog.allowlist(o.profile) : "all",
    ...(o.approved ? { approved: true, approvedBasis: o.approved.basis } : {}),
    ...(o.initial
      ? { session: { id: "s1", profileKey: o.profile ?? "", initial: o.initial, services: {} } }
      : {}),
  };
  return dispatch({ key, input }, dctx);
}

async function ok(r: Promise<DispatchResult>): Promise<{ text: string; details?: unknown }> {
  const res = await r;
  if (!res.ok) throw new Error(`expected success: ${res.error.code} ${res.error.message}`);
  return res;
}

async function code(r: Promise<DispatchResult>): Promise<string> {
  const res = await r;
  if (res.ok) throw new Error(`expected an error: ${res.text}`);
  return `${res.error.code}: ${res.error.message}`;
}

const search = (
  subjectPath: string,
  query: string,
  source: "events" | "memory" = "events",
  o: CallOpts = {},
) => call("subject_rag_search", { subjectPath, query, sources: [source] }, o);

describe("subject_event_append", () => {
  it("creates the subject on first append and appends exact lines after existing ones", async () => {
    expect(existsSync(abs(A))).toBe(false);
    const r = await ok(
      call("subject_event_append", {
        subjectPath: A,
        events: [{ text: " Mira hears the bell. ", tick: "000001" }],
      }),
    );
    expect(r.details).toEqual({
      subjectPath: A,
      sourcePath: `${A}/events.jsonl`,
      appended: 1,
      created: true,
    });
    await ok(
      call("subject_event_append", {
        subjectPath: `${A}\\`,
        events: [{ text: "Rain at dusk.", time: "dusk" }],
      }),
    );
    expect(readFileSync(abs(`${A}/events.jsonl`), "utf8")).toBe(
      '{"text":"Mira hears the bell.","tick":"000001"}\n{"text":"Rain at dusk.","time":"dusk"}\n',
    );
  });

  it("goes through the file authorisation path: a subject folder linked out of the project is refused", async () => {
    const outside = join(bed.dir, "outside");
    mkdirSync(outside);
    mkdirSync(abs("simulation/subjects"), { recursive: true });
    symlinkSync(outside, abs("simulation/subjects/evil"));
    const evil = "simulation/subjects/evil";
    expect(await code(call("subject_event_append", { subjectPath: evil, events: [{ text: "x" }] }))).toMatch(
      /^path_escape/,
    );
    expect(await code(search(evil, "x"))).toMatch(/^path_escape/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("writes only the new lines: the file keeps its inode, and a hard link to it is refused", async () => {
    await ok(call("subject_event_append", { subjectPath: A, events: [{ text: "first" }] }));
    const ino = statSync(abs(`${A}/events.jsonl`)).ino;
    await ok(call("subject_event_append", { subjectPath: A, events: [{ text: "second" }] }));
    expect(statSync(abs(`${A}/events.jsonl`)).ino).toBe(ino);
    expect(readFileSync(abs(`${A}/events.jsonl`), "utf8")).toBe('{"text":"first"}\n{"text":"second"}\n');
    const outside = join(bed.dir, "outside.jsonl");
    writeFileSync(outside, '{"text":"outside"}\n');
    mkdirSync(abs(B), { recursive: true });
    linkSync(outside, abs(`${B}/events.jsonl`));
    expect(await code(call("subject_event_append", { subjectPath: B, events: [{ text: "x" }] }))).toMatch(
      /^(path_escape|not_allowed)/,
    );
    expect(readFileSync(outside, "utf8")).toBe('{"text":"outside"}\n');
  });

  it("a torn final line in events.jsonl is dropped with a warning by search, and cut away by the next append", async () => {
    mkdirSync(abs(A), { recursive: true });
    writeFileSync(abs(`${A}/events.jsonl`), '{"text":"Mira hears the bell."}\n{"text":"Mira sees the tow');
    const found = await ok(search(A, "Mira"));
    expect(found.text).toContain(
      `Warning: ${A}/events.jsonl:2: an unfinished last line (an append cut short) was dropped`,
    );
    expect(found.text).toContain("Mira hears the bell.");
    expect(found.text).not.toContain("tow");
    const appended = await ok(call("subject_event_append", { subjectPath: A, events: [{ text: "Rain." }] }));
    expect(appended.text).toContain("an unfinished last line (an append cut short) was dropped");
    expect(readFileSync(abs(`${A}/events.jsonl`), "utf8")).toBe(
      '{"text":"Mira hears the bell."}\n{"text":"Rain."}\n',
    );
    const again = await ok(search(A, "Rain"));
    expect(again.text).not.toContain("Warning");
    expect(again.text).toContain("Rain.");
  });

  it("ignores an old events.md", async () => {
    mkdirSync(abs(A), { recursive: true });
    writeFileSync(abs(`${A}/events.md`), "- an old markdown event\n");
    await ok(call("subject_event_append", { subjectPath: A, events: [{ text: "new" }] }));
    expect(readFileSync(abs(`${A}/events.jsonl`), "utf8")).toBe('{"text":"new"}\n');
    expect(readFileSync(abs(`${A}/events.md`), "utf8")).toBe("- an old markdown event\n");
    expect((await ok(search(A, "markdown"))).text).toBe("No events candidates were recalled.");
  });

  it("loses no line when many appends run at once", async () => {
    const texts = Array.from({ length: 20 }, (_, i) => `event ${i}`);
    await Promise.all(
      texts.map((text) => ok(call("subject_event_append", { subjectPath: A, events: [{ text }] }))),
    );
    const lines = readFileSync(abs(`${A}/events.jsonl`), "utf8")
      .trimEnd()
      .split("\n");
    expect(lines.map((l) => (JSON.parse(l) as { text: string }).text).sort()).toEqual([...texts].sort());
  });

  it("refuses unknown event keys and a bad subject path, writing nothing", async () => {
    expect(
      await code(call("subject_event_append", { subjectPath: A, events: [{ text: "x", mood: "sad" }] })),
    ).toMatch(/^invalid_input/);
    expect(
      await code(
        call("subject_event_append", { subjectPath: "simulation/subjects/..", events: [{ text: "x" }] }),
      ),
    ).toMatch(/^invalid_input: subjectPath must/);
    expect(existsSync(abs(A))).toBe(false);
  });

  it("is gated in a read-only mode with the events as preview; an approval after a concurrent change is a conflict", async () => {
    await ok(call("subject_event_append", { subjectPath: A, events: [{ text: "first" }] }));
    const input = { subjectPath: A, events: [{ text: "second", tick: "2" }] };
    const stopped = await call("subject_event_append", input, { mode: "discuss" });
    if (stopped.ok || stopped.error.code !== "approval_required") throw new Error("expected an approval");
    const preview = JSON.parse(
      JSON.stringify((stopped.error.details as { preview: ToolPreview }).preview),
    ) as ToolPreview;
    expect(preview.text).toContain('+{"text":"second","tick":"2"}');
    expect(preview.details).toMatchObject({ events: [{ text: "second", tick: "2" }] });

    writeFileSync(abs(`${A}/events.jsonl`), '{"text":"first"}\n{"text":"added by hand"}\n');
    expect(
      await code(
        call("subject_event_append", input, { mode: "discuss", approved: { basis: preview.basis } }),
      ),
    ).toMatch(/^conflict: simulation\/subjects\/mira\/events\.jsonl changed after the preview/);
    expect(readFileSync(abs(`${A}/events.jsonl`), "utf8")).toBe(
      '{"text":"first"}\n{"text":"added by hand"}\n',
    );

    const fresh = await call("subject_event_append", input, { mode: "discuss" });
    if (fresh.ok) throw new Error("expected an approval");
    const basis = (fresh.error.details as { preview: ToolPreview }).preview.basis;
    await ok(call("subject_event_append", input, { mode: "discuss", approved: { basis } }));
    expect(readFileSync(abs(`${A}/events.jsonl`), "utf8")).toBe(
      '{"text":"first"}\n{"text":"added by hand"}\n{"text":"second","tick":"2"}\n',
    );
  });
});

describe("subject_event_append's approval basis", () => {
  const file = () => abs(`${A}/events.jsonl`);
  const sha = (t: string) => createHash("sha256").update(t, "utf8").digest("hex");
  const stop = async (input: unknown) => {
    const r = await call("subject_event_append", input, { mode: "discuss" });
    if (r.ok || r.error.code !== "approval_required") throw new Error("expected an approval");
    return (r.error.details as { preview: ToolPreview }).preview;
  };

  it("pins the file's size and last line, not its whole text: what runs is what the preview showed", async () => {
    mkdirSync(abs(A), { recursive: true });
    writeFileSync(file(), '{"text":"aaaa"}\n{"text":"last"}\n');
    const input = { subjectPath: A, events: [{ text: "new" }] };
    const preview = await stop(input);
    // The basis grows with the last line only, whatever the file's length.
    expect(JSON.stringify(preview.basis).length).toBeLessThan(200);
    // An edit before the last line that keeps the size changes nothing the append does.
    writeFileSync(file(), '{"text":"bbbb"}\n{"text":"last"}\n');
    await ok(call("subject_event_append", input, { mode: "discuss", approved: { basis: preview.basis } }));
    expect(readFileSync(file(), "utf8")).toBe('{"text":"bbbb"}\n{"text":"last"}\n{"text":"new"}\n');

    // A changed last line of the same size, or a torn line appended since, is a conflict.
    const again = await stop(input);
    writeFileSync(file(), '{"text":"bbbb"}\n{"text":"last"}\n{"text":"wen"}\n');
    expect(
      await code(call("subject_event_append", input, { mode: "discuss", approved: { basis: again.basis } })),
    ).toMatch(/^conflict: /);
    const third = await stop(input);
    writeFileSync(file(), '{"text":"bbbb"}\n{"text":"last"}\n{"text":"wen"}\n{"te');
    expect(
      await code(call("subject_event_append", input, { mode: "discuss", approved: { basis: third.basis } })),
    ).toMatch(/^conflict: /);
    expect(readFileSync(file(), "utf8")).toBe('{"text":"bbbb"}\n{"text":"last"}\n{"text":"wen"}\n{"te');
    // A basis of another shape (a whole-file hash) is refused.
    expect(
      await code(
        call("subject_event_append", input, {
          mode: "discuss",
          approved: { basis: { files: [{ path: `${A}/events.jsonl`, sha256: "x" }] } },
        }),
      ),
    ).toMatch(/^conflict: The approval does not match this subject_event_append call/);
  });

  it("reports the file's content hashes before and after, a torn last line dropped included", async () => {
    mkdirSync(abs(A), { recursive: true });
    const records: ChangeRecord[] = [];
    const append = (text: string) =>
      dispatch(
        { key: "subject_event_append", input: { subjectPath: A, events: [{ text }] } },
        {
          registry,
          workspace: bed.ws,
          project: bed.project,
          mode: "normal",
          profileKey: null,
          allow: "all",
          onChange: (r) => records.push(r),
        },
      );
    await ok(append("one"));
    expect(records[0]?.files).toEqual([
      { path: `${A}/events.jsonl`, before: null, after: sha('{"text":"one"}\n') },
    ]);
    writeFileSync(file(), '{"text":"one"}\n{"te');
    await ok(append("two"));
    expect(records[1]?.files).toEqual([
      {
        path: `${A}/events.jsonl`,
        before: sha('{"text":"one"}\n{"te'),
        after: sha('{"text":"one"}\n{"text":"two"}\n'),
      },
    ]);
    expect(readFileSync(file(), "utf8")).toBe('{"text":"one"}\n{"text":"two"}\n');
  });
});

describe("subject_rag_search", () => {
  it("never creates a subject", async () => {
    expect(await code(search(A, "bell"))).toBe("not_found: No subject at simulation/subjects/mira");
    expect(existsSync(abs(A))).toBe(false);
  });

  it("takes one source or both, each ranked apart", async () => {
    mkdirSync(abs(A), { recursive: true });
    writeFileSync(abs(`${A}/events.jsonl`), '{"text":"The bell rang at noon."}\n');
    writeFileSync(abs(`${A}/memory.jsonl`), '{"topic":"the bell","view":"It rings at noon."}\n');
    for (const sources of [[], ["events", "events"], ["events", "memory", "events"]]) {
      expect(await code(call("subject_rag_search", { subjectPath: A, query: "x", sources }))).toMatch(
        /^invalid_input: [\s\S]*\/sources: must/,
      );
    }
    expect(await code(call("subject_rag_search", { subjectPath: A, query: "x" }))).toMatch(
      /\/sources: required/,
    );
    const both = await ok(
      call("subject_rag_search", { subjectPath: A, query: "bell", sources: ["events", "memory"] }),
    );
    expect(both.text).toBe(
      "1 events candidate:\n\n1. events\nThe bell rang at noon.\n\n1 memory candidate:\n\n1. memory topic=the bell\nthe bell: It rings at noon.",
    );
    expect(both.details).toEqual({
      subjectPath: A,
      sources: ["events", "memory"],
      count: 2,
      counts: { events: 1, memory: 1 },
      retrieval: "keyword",
    });
  });

  it("finds events and memories by English keywords, with topic/tick/time tags and no scores", async () => {
    await ok(
      call("subject_event_append", {
        subjectPath: A,
        events: [
          { text: "Mira found a brass key under the chapel floor.", tick: "000003", time: "first night" },
          { text: "The baker shouted at Mira for being late." },
          { text: "Mira counted the stairs of the bell tower." },
        ],
      }),
    );
    const r = await ok(search(A, "brass key"));
    expect(r.text).toBe(
      "1 events candidate:\n\n1. events tick=000003 time=first night\nMira found a brass key under the chapel floor.",
    );
    expect(r.details).toEqual({
      subjectPath: A,
      sources: ["events"],
      count: 1,
      counts: { events: 1 },
      retrieval: "keyword",
    });

    writeFileSync(
      abs(`${A}/memory.jsonl`),
      '{"topic":"Lin","view":"Kind, but hides something about the tower.","aliases":["the pink-haired girl"]}\n{"topic":"the baker","view":"Shouts, never means it."}\n',
    );
    const m = await ok(search(A, "pink-haired", "memory"));
    expect(m.text).toContain(
      "1. memory topic=Lin\nLin (also: the pink-haired girl): Kind, but hides something",
    );
    expect((await ok(search(A, "dragon"))).text).toBe("No events candidates were recalled.");
  });

  it("finds Chinese text, including one- and two-character queries", async () => {
    await ok(
      call("subject_event_append", {
        subjectPath: A,
        events: [
          { text: "林黛玉在花园里葬花，哭了很久。" },
          { text: "宝玉送来一把旧钥匙。" },
          { text: "雨下了一整夜。" },
        ],
      }),
    );
    expect((await ok(search(A, "黛玉葬花"))).text).toContain("1. events\n林黛玉在花园里葬花");
    expect((await ok(search(A, "钥匙"))).text).toBe("1 events candidate:\n\n1. events\n宝玉送来一把旧钥匙。");
    expect((await ok(search(A, "雨"))).text).toContain("雨下了一整夜。");
  });

  it("sees a hand edit on the next search, re-indexing only the changed lines", async () => {
    await ok(
      call("subject_event_append", {
        subjectPath: A,
        events: [{ text: "The lantern went out." }, { text: "A crow watched the gate." }],
      }),
    );
    expect((await ok(search(A, "lantern"))).details).toMatchObject({ count: 1 });
    writeFileSync(
      abs(`${A}/events.jsonl`),
      '{"text":"The lantern was relit by Lin."}\n{"text":"A crow watched the gate."}\n',
    );
    const r = await ok(search(A, "relit"));
    expect(r.text).toContain("The lantern was relit by Lin.");
    expect((await ok(search(A, "went out"))).text).toBe("No events candidates were recalled.");
  });

  it("reports a broken line with file:line", async () => {
    mkdirSync(abs(A), { recursive: true });
    writeFileSync(abs(`${A}/memory.jsonl`), '{"topic":"a","view":"x"}\n{"topic":"a","view":"y"}\n');
    expect(await code(search(A, "anything", "memory"))).toBe(
      'invalid_input: simulation/subjects/mira/memory.jsonl:2: duplicate topic "a" (first on line 1)',
    );
  });
});

describe("subject isolation", () => {
  beforeEach(async () => {
    for (const [p, name] of [
      [A, "Mira"],
      [B, "Lin"],
    ] as const) {
      await ok(
        call("subject_event_append", {
          subjectPath: p,
          events: Array.from({ length: 8 }, (_, i) => ({
            text: `${name} saw the silver lantern in the tower, night ${i}.`,
          })),
        }),
      );
    }
  });

  it("each subject's search returns only its own chunks, even with near-identical text", async () => {
    const a = await ok(
      call("subject_rag_search", {
        subjectPath: A,
        query: "silver lantern tower",
        sources: ["events"],
        limit: 20,
      }),
    );
    const b = await ok(
      call("subject_rag_search", {
        subjectPath: B,
        query: "silver lantern tower",
        sources: ["events"],
        limit: 20,
      }),
    );
    expect(a.details).toMatchObject({ count: 8 });
    expect(b.details).toMatchObject({ count: 8 });
    expect(a.text).not.toContain("Lin saw");
    expect(b.text).not.toContain("Mira saw");
  });

  it("an actor bound to one subject may search and append its own, and gets not_allowed for another", async () => {
    const actor = { profile: "simulator.actor", initial: { subjectPath: A, kind: "npc" } };
    await ok(search(A, "lantern", "events", actor));
    await ok(call("subject_event_append", { subjectPath: A, events: [{ text: "mine" }] }, actor));
    expect(await code(search(B, "lantern", "events", actor))).toMatch(
      /^not_allowed: simulator\.actor plays simulation\/subjects\/mira/,
    );
    const before = readFileSync(abs(`${B}/events.jsonl`), "utf8");
    expect(
      await code(call("subject_event_append", { subjectPath: B, events: [{ text: "theirs" }] }, actor)),
    ).toMatch(/^not_allowed/);
    expect(readFileSync(abs(`${B}/events.jsonl`), "utf8")).toBe(before);
    expect(await code(search(A, "lantern", "events", { profile: "simulator.actor" }))).toMatch(
      /^not_allowed: .*bound to no subject/,
    );
  });

  it("leader.default and director reach any subject", async () => {
    for (const profile of ["leader.default", "director"]) {
      await ok(search(A, "lantern", "events", { profile }));
      await ok(search(B, "lantern", "events", { profile }));
    }
  });
});
