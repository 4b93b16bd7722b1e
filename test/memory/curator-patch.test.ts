import { describe, expect, it } from "vitest";
import { applyMemoryPatch, describeChanges, memoryChanges } from "../../src/memory/curate.js";
import type { SubjectMemory } from "../../src/memory/files.js";

const current: SubjectMemory[] = [
  { topic: "the pink-haired girl", view: "Sat alone at lunch." },
  { topic: "the baker", view: "Shouts, never means it." },
];
const frozen = JSON.stringify(current);

function refused(patch: unknown): string {
  const r = applyMemoryPatch(current, patch);
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.memories)}`);
  return r.reason;
}

describe("applyMemoryPatch", () => {
  it("merges two topics by index: the result is validated, the current list untouched", () => {
    const r = applyMemoryPatch(current, [
      {
        op: "replace",
        path: "/0",
        value: { topic: " Lin ", view: "Lin is the girl who sat alone.", aliases: ["the pink-haired girl"] },
      },
      { op: "test", path: "/1/topic", value: "the baker" },
    ]);
    expect(r).toEqual({
      ok: true,
      changed: true,
      memories: [
        { topic: "Lin", view: "Lin is the girl who sat alone.", aliases: ["the pink-haired girl"] },
        { topic: "the baker", view: "Shouts, never means it." },
      ],
    });
    expect(JSON.stringify(current)).toBe(frozen);
  });

  it("an empty patch, or one that rewrites a value to itself, changes nothing", () => {
    expect(applyMemoryPatch(current, [])).toMatchObject({ ok: true, changed: false });
    expect(
      applyMemoryPatch(current, [{ op: "replace", path: "/1/view", value: "Shouts, never means it." }]),
    ).toMatchObject({ ok: true, changed: false });
    expect(applyMemoryPatch([], [])).toEqual({ ok: true, changed: false, memories: [] });
  });

  it("re-validates the whole list: empty views and topics, unknown keys, duplicates, a non-list", () => {
    expect(refused([{ op: "replace", path: "/1/view", value: "  " }])).toBe(
      "the resulting memory at /1 is invalid:\n/1/view: must not be empty",
    );
    expect(refused([{ op: "add", path: "/-", value: { topic: "", view: "x" } }])).toBe(
      "the resulting memory at /2 is invalid:\n/2/topic: must not be empty",
    );
    expect(refused([{ op: "add", path: "/0/mood", value: "sad" }])).toBe(
      "the resulting memory at /0 is invalid:\n/0/mood: unknown field",
    );
    expect(refused([{ op: "add", path: "/-", value: { topic: "the baker", view: "y" } }])).toBe(
      'duplicate topic "the baker" at /2 (also at /1)',
    );
    expect(refused([{ op: "replace", path: "", value: { topic: "x", view: "y" } }])).toBe(
      "after the patch the memories are no longer a list (array)",
    );
    expect(JSON.stringify(current)).toBe(frozen);
  });

  it("names the operation that could not apply, and why", () => {
    expect(
      refused([
        { op: "remove", path: "/0" },
        { op: "replace", path: "/1/view", value: "x" },
      ]),
    ).toBe("operation 1 (replace /1/view): the path does not exist (indices are 0-based; `-` only with add)");
    expect(refused([{ op: "replace", path: "/01/view", value: "x" }])).toMatch(
      /^operation 0 \(replace \/01\/view\)/,
    );
    expect(refused([{ op: "test", path: "/0/view", value: "other" }])).toBe(
      "operation 0 (test /0/view): the test did not match (the value at that path is different)",
    );
    expect(refused([{ op: "replace", path: "0/view", value: "x" }])).toBe(
      'operation 0 (replace 0/view): the path must be a JSON Pointer starting with "/"',
    );
    expect(refused([{ op: "add", path: "/0/__proto__/x", value: 1 }])).toMatch(/^operation 0 .*banned/);
  });

  it("refuses a malformed patch with JSON Pointers to each problem", () => {
    expect(refused({ op: "add" })).toMatch(/^the patch is malformed:\n\/patch: /);
    expect(refused([{ op: "upsert", path: "/0" }])).toMatch(/^the patch is malformed:\n\/patch\/0\/op: /);
    expect(
      refused([
        { op: "move", path: "/0" },
        { op: "add", path: "/-" },
      ]),
    ).toBe("the patch is malformed:\n/patch/0/from: required for move\n/patch/1/value: required for add");
    expect(refused([{ op: "remove", path: "/0", why: "old" }])).toBe(
      "the patch is malformed:\n/patch/0/why: unknown field",
    );
  });
});

describe("memoryChanges", () => {
  it("lists added, changed and removed topics; a rename is a removal and an addition", () => {
    const after: SubjectMemory[] = [
      { topic: "Lin", view: "The girl who sat alone.", aliases: ["the pink-haired girl"] },
      { topic: "the baker", view: "Kinder than he sounds." },
    ];
    const c = memoryChanges(current, after);
    expect(c).toEqual({ added: ["Lin"], changed: ["the baker"], removed: ["the pink-haired girl"] });
    expect(describeChanges(c)).toBe('added "Lin"; changed "the baker"; removed "the pink-haired girl"');
    expect(describeChanges(memoryChanges(current, current))).toBe("no topic changed");
  });
});
