import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { tempWorld } from "../../test/world/fixture.js";
import { NbError } from "../core/errors.js";
import type { PatchEdit, PatchInput } from "./api.js";
import { collectEntries } from "./entries.js";
import type { JsonObject } from "./json.js";
import { applyPatch } from "./ops.js";
import { segmentsOf } from "./pointer.js";
import { semanticsFor } from "./reduce.js";
import { parseSchema } from "./schema.js";

const SCHEMA = `types:
  thing:
    attrs:
      n: { type: int, default: 0 }
      tags: { type: list, of: string }
      bag: { type: set, of: string }
      memory: { type: record, of: text }
      link: ref:thing
      log: { type: list, of: text }
      friends: { type: list, of: ref:thing }
`;
const IDS = ["a", "b", "c"];

const patchArb: fc.Arbitrary<PatchInput> = fc
  .oneof(
    fc.record({
      path: fc.constant("/n"),
      op: fc.constant("increment" as const),
      value: fc.integer({ min: -5, max: 5 }),
    }),
    fc.record({
      path: fc.constant("/n"),
      op: fc.constant("replace" as const),
      value: fc.integer({ min: 0, max: 9 }),
    }),
    fc.record({
      path: fc.constantFrom("/tags", "/bag"),
      op: fc.constant("append" as const),
      value: fc.constantFrom("x", "y", "z"),
    }),
    fc.record({
      path: fc.constantFrom("/tags/0", "/tags/1", "/n", "/memory/k1"),
      op: fc.constant("remove" as const),
    }),
    fc.record({
      path: fc.constant("/bag"),
      op: fc.constant("remove" as const),
      value: fc.constantFrom("x", "y"),
    }),
    fc.record({
      path: fc.constantFrom("/memory/k0", "/memory/k1", "/memory/k2"),
      op: fc.constant("replace" as const),
      value: fc.constantFrom("rain at dawn", "雨夜的师门", "the old sword"),
    }),
    fc.record({
      path: fc.constant("/link"),
      op: fc.constant("replace" as const),
      value: fc.constantFrom("subject://a", "subject://b", "subject://c", null),
    }),
    fc.record({
      path: fc.constant("/tags"),
      op: fc.constant("replace" as const),
      value: fc.constantFrom([], ["q"]),
    }),
    // Lists of text entries and of references: an append or removal in the past shifts later items.
    fc.record({
      path: fc.constant("/log"),
      op: fc.constant("append" as const),
      value: fc.constantFrom("rain at dawn", "雨夜的师门", "the old sword"),
    }),
    fc.record({
      path: fc.constant("/friends"),
      op: fc.constant("append" as const),
      value: fc.constantFrom("subject://a", "subject://b", "subject://c"),
    }),
    fc.record({
      path: fc.constantFrom("/log/0", "/friends/0", "/log/1"),
      op: fc.constant("remove" as const),
    }),
    fc.record({
      path: fc.constantFrom("/log", "/friends"),
      op: fc.constant("replace" as const),
      value: fc.constant([]),
    }),
  )
  .chain((p) =>
    fc.constantFrom(...IDS).map((subjectId) => ({ ...p, subjectId, type: "thing" }) as PatchInput),
  );

type Action =
  | { kind: "write"; time: number; merge: boolean; patches: PatchInput[] }
  | {
      kind: "edit";
      pick: number;
      edit: "value" | "remove" | "move" | "add";
      time: number;
      patch: PatchInput;
      n: number;
    }
  | { kind: "delete"; pick: number };

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("write" as const),
      time: fc.integer({ min: -5, max: 30 }),
      merge: fc.boolean(),
      patches: fc.array(patchArb, { minLength: 1, maxLength: 5 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("edit" as const),
      pick: fc.nat(),
      edit: fc.constantFrom("value" as const, "remove" as const, "move" as const, "add" as const),
      time: fc.integer({ min: -5, max: 30 }),
      patch: patchArb,
      n: fc.integer({ min: 0, max: 9 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), pick: fc.nat() }) },
);

const schema = parseSchema(SCHEMA);

/** The naive fold: replay every stored patch of a subject from scratch. */
function naive(w: ReturnType<typeof tempWorld>["world"], id: string, at?: number) {
  const sem = semanticsFor(schema, "thing");
  const state: JsonObject = {};
  const failures: string[] = [];
  for (const h of w.subject.history(id)) {
    if (at !== undefined && h.instant > at) break;
    const f = applyPatch(state, h.op, segmentsOf(h.path), h.value, sem);
    if (f) failures.push(`${h.patchId}:${f.label}`);
  }
  return { state, failures };
}

/** The derived rows that do not depend on when they were derived (not ids, attribute order, checkpoint or snapshot places). */
function derivedRows(w: ReturnType<typeof tempWorld>["world"]) {
  const all = (sql: string) => w.db.prepare(sql).all();
  return {
    latest: all("SELECT subject_id, top, last_instant FROM state_latest ORDER BY 1, 2"),
    states: w.subject.list().map((s) => w.subject.get(s.id)),
    issues: all(
      "SELECT subject_id, top, slice_id, patch_id, instant, label, attr, op, message FROM issues ORDER BY 1, 2, 3, 4, 5, 6, 7, 9",
    ),
    refs: all(
      "SELECT subject_id, top, attr, target, from_instant, to_instant FROM refs ORDER BY 1, 2, 3, 4, 5",
    ),
    texts: all(
      "SELECT t.subject_id, t.top, t.attr, b.body, t.from_instant, t.to_instant FROM texts t JOIN text_bodies b ON b.id = t.body_id ORDER BY 1, 2, 3, 4, 5",
    ),
  };
}

function tolerate(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof NbError) || !["invalid_input", "conflict", "not_found"].includes(e.code)) throw e;
  }
}

/** Play random writes, edits and deletes on `w`; refused ones (bad input, conflicts) are skipped. */
function play(w: ReturnType<typeof tempWorld>["world"], actions: Action[]): void {
  for (const a of actions) {
    const slices = w.slice.list();
    if (a.kind === "write")
      tolerate(() => w.slice.write({ time: a.time, merge: a.merge, patches: a.patches }));
    else if (slices.length) {
      const s = w.slice.get(slices[a.pick % slices.length].id);
      if (a.kind === "delete") {
        tolerate(() => w.slice.delete(s.id));
        continue;
      }
      const target = s.patches[a.pick % s.patches.length];
      const edits: PatchEdit[] =
        a.edit === "value"
          ? [
              {
                patchId: target.patchId,
                set: { value: target.op === "increment" ? a.n - 4 : a.patch.value },
              },
            ]
          : a.edit === "remove"
            ? [{ patchId: target.patchId, remove: true }]
            : a.edit === "add"
              ? [{ add: a.patch }]
              : [];
      tolerate(() => w.slice.editPatches(s.id, edits, a.edit === "move" ? { time: a.time } : {}));
    }
  }
}

describe("incremental reduce", () => {
  let t: ReturnType<typeof tempWorld> | null = null;
  afterEach(() => t?.cleanup());

  it("cached state, checkpoints, issues, refs and text entries equal a naive fold from scratch", () => {
    fc.assert(
      fc.property(
        fc.array(actionArb, { minLength: 20, maxLength: 120 }),
        fc.array(fc.option(fc.integer({ min: -6, max: 31 }), { nil: undefined }), {
          minLength: 4,
          maxLength: 4,
        }),
        (actions, probes) => {
          t?.cleanup();
          t = tempWorld(SCHEMA, {}, 3, 2);
          const w = t.world;
          play(w, actions);
          const storedFailures = w.issues
            .list()
            .filter((i) => i.label !== "E2")
            .map((i) => `${i.patchId}:${i.label}`)
            .sort();
          const naiveFailures: string[] = [];
          for (const id of w.subject.list().map((s) => s.id)) {
            const full = naive(w, id);
            naiveFailures.push(...full.failures);
            expect(w.subject.get(id)).toEqual(full.state);
            for (let at = -6; at <= 31; at += 4)
              expect(w.subject.get(id, { at })).toEqual(naive(w, id, at).state);
            for (const at of probes) {
              const expected = naive(w, id, at).state;
              expect(w.subject.get(id, { at })).toEqual(expected);
              const refs = [
                ...collectEntries(expected, Object.keys(expected), schema.types.thing).values(),
              ].filter((e) => e.kind === "ref");
              for (const target of IDS) {
                const cached = w.subject
                  .findRefs(target, { at })
                  .filter((r) => r.subjectId === id)
                  .map((r) => r.attr);
                expect(cached.sort()).toEqual(
                  refs
                    .filter((r) => r.value === target)
                    .map((r) => r.attr)
                    .sort(),
                );
              }
              const texts = [...collectEntries(expected, ["memory", "log"], schema.types.thing).values()]
                .filter((e) => e.kind === "text")
                .map((e) => `${e.attr}=${e.value}`);
              const found = ["rain at dawn", "雨夜的师门", "the old sword", "x", "y", "z", "q"].flatMap((q) =>
                w.search
                  .text(q, { at, k: 50 })
                  .filter((h) => h.subjectId === id)
                  .map((h) => `${h.attr}=${h.text}`),
              );
              expect([...new Set(found)].sort()).toEqual(texts.sort());
            }
          }
          expect(storedFailures).toEqual(naiveFailures.sort());
        },
      ),
      { numRuns: 30 },
    );
  }, 120_000);

  it("re-deriving only the touched attributes leaves what deriving everything from scratch leaves", () => {
    fc.assert(
      fc.property(fc.array(actionArb, { minLength: 20, maxLength: 120 }), (actions) => {
        t?.cleanup();
        t = tempWorld(SCHEMA, {}, 3, 2);
        const w = t.world;
        play(w, actions);
        // Every stored checkpoint and snapshot holds its attribute's value at its instant.
        const checkpoints = w.db
          .prepare<[], { subject_id: string; top: string; instant: number; value: string | null }>(
            "SELECT subject_id, top, instant, value FROM checkpoints UNION ALL SELECT subject_id, top, instant, value FROM snapshots",
          )
          .all();
        for (const c of checkpoints)
          expect(c.value === null ? undefined : JSON.parse(c.value)).toEqual(
            naive(w, c.subject_id, c.instant).state[c.top],
          );
        const incremental = derivedRows(w);
        w.rebuild();
        expect(derivedRows(w)).toEqual(incremental);
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  it("statesAt answers like get and the naive fold for (subject, instant) pairs in any order", () => {
    fc.assert(
      fc.property(
        fc.array(actionArb, { minLength: 10, maxLength: 80 }),
        fc.array(fc.record({ id: fc.constantFrom(...IDS, "nobody"), at: fc.integer({ min: -6, max: 31 }) }), {
          maxLength: 40,
        }),
        (actions, pairs) => {
          t?.cleanup();
          t = tempWorld(SCHEMA, {}, 3, 2);
          const w = t.world;
          play(w, actions);
          const states = w.subject.statesAt(pairs);
          expect(states).toEqual(pairs.map((p) => w.subject.get(p.id, { at: p.at })));
          const known = new Set(w.subject.list().map((s) => s.id));
          pairs.forEach((p, i) => {
            if (known.has(p.id)) expect(states[i]).toEqual(naive(w, p.id, p.at).state);
            else expect(states[i]).toBeNull();
          });
          // Each answer is its own object, even for a repeated or unchanged (subject, instant).
          states.forEach((s, i) => {
            if (s) s.probe = i;
          });
          states.forEach((s, i) => {
            if (s) expect(s.probe).toBe(i);
          });
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
