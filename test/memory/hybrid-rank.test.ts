import { describe, expect, it } from "vitest";
import { fetchLimit, fuseRanks, RRF_K } from "../../src/memory/hybrid.js";
import { cachedMatrix } from "../../src/memory/vector-cache.js";
import { MIN_SIMILARITY, TopK } from "../../src/memory/vectors.js";
import { checkedVectors } from "../../src/models/embeddings/provider.js";

describe("hybrid ranking", () => {
  it("fuses by reciprocal rank: an id in both lists beats ids at the top of one", () => {
    expect(
      fuseRanks(
        [
          [1, 2, 3],
          [3, 4, 1],
        ],
        10,
      ),
    ).toEqual([1, 3, 2, 4]);
    expect(fuseRanks([[5, 6], [7]], 2)).toEqual([5, 7]);
    expect(fuseRanks([[], []], 5)).toEqual([]);
    expect(RRF_K).toBe(60);
  });

  it("fetches four times the limit from each list, at most 80", () => {
    expect([1, 6, 20].map(fetchLimit)).toEqual([4, 24, 80]);
  });

  it("keeps a medium match and drops a weak one (distance cut-off 1.15 between unit vectors)", () => {
    const [medium, weak] = checkedVectors(
      [
        [0.55, 0.83],
        [0.3, 0.95],
      ],
      2,
      2,
      "m",
    );
    const query = Float32Array.of(1, 0);
    const cos = (v: Float32Array) => v[0]! * query[0]! + v[1]! * query[1]!;
    expect(cos(medium!)).toBeGreaterThanOrEqual(MIN_SIMILARITY);
    expect(cos(weak!)).toBeLessThan(MIN_SIMILARITY);
    expect(Math.sqrt(2 - 2 * MIN_SIMILARITY)).toBeCloseTo(1.15, 10);
  });

  it("keeps the best k scores in order", () => {
    const top = new TopK(3);
    for (const [id, s] of [
      [1, 0.2],
      [2, 0.9],
      [3, 0.5],
      [4, 0.1],
      [5, 0.7],
    ] as const)
      top.offer(id, s);
    expect(top.ids).toEqual([2, 5, 3]);
    expect(top.scores).toEqual([0.9, 0.7, 0.5]);
  });
});

describe("checking a model's vectors", () => {
  it("normalises, and refuses a wrong count, length, a non-finite value or a zero vector", () => {
    const [v] = checkedVectors([[3, 4]], 1, 2, '"m"');
    expect([...v!]).toEqual([expect.closeTo(0.6), expect.closeTo(0.8)]);
    expect(() => checkedVectors([[1, 0]], 2, 2, '"m"')).toThrow(
      'Embedding model "m": returned 1 vectors for 2 texts',
    );
    expect(() => checkedVectors([[1, 0, 0]], 1, 2, '"m"')).toThrow(
      "returned a vector of 3 values, but embedding.dimensions is 2",
    );
    expect(() => checkedVectors([[1, Number.NaN]], 1, 2, '"m"')).toThrow("not a finite number");
    expect(() => checkedVectors([[0, 0]], 1, 2, '"m"')).toThrow("all-zero vector");
  });
});

describe("the cached vector matrix", () => {
  const rowsOf = (ids: number[]) => ({
    rows: ids.length,
    ids: Int32Array.from(ids),
    data: Float32Array.from(ids.flatMap((id) => [id, -id])),
  });
  const view = (m: { rows: number; ids: Int32Array; data: Float32Array }) => ({
    ids: [...m.ids.subarray(0, m.rows)],
    data: [...m.data.subarray(0, m.rows * 2)],
  });

  it("is read once per version, grows by the rows after its last id, and is read again for a new version", () => {
    const calls: string[] = [];
    let next: number[] = [];
    const get = (version: string) =>
      cachedMatrix(
        "test-key",
        version,
        () => {
          calls.push("load");
          return rowsOf([1, 2]);
        },
        (after) => {
          calls.push(`after ${after}`);
          return rowsOf(next.filter((id) => id > after));
        },
      );
    expect(view(get("v1"))).toEqual({ ids: [1, 2], data: [1, -1, 2, -2] });
    next = [5];
    const grown = get("v1");
    expect(view(grown)).toEqual({ ids: [1, 2, 5], data: [1, -1, 2, -2, 5, -5] });
    next = [5, 6, 7];
    expect(get("v1").data).toBe(grown.data); // room left (half as big again): grown in place
    next = [5, 6, 7, 9];
    expect(view(get("v1"))).toEqual({
      ids: [1, 2, 5, 6, 7, 9],
      data: [1, -1, 2, -2, 5, -5, 6, -6, 7, -7, 9, -9],
    });
    expect(view(get("v2"))).toEqual({ ids: [1, 2], data: [1, -1, 2, -2] });
    expect(calls).toEqual(["load", "after 2", "after 5", "after 7", "load"]);
  });
});
