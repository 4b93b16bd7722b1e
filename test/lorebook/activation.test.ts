import { describe, expect, it } from "vitest";
import { activateCanon } from "../../src/lorebook/activation.js";
import type { LoreEntry } from "../../src/lorebook/entries.js";
import { parseLoreFile } from "../../src/lorebook/front-matter.js";
import { findKey, prepareKey } from "../../src/lorebook/match.js";

function entry(path: string, keys: string[], body: string, extra: Partial<LoreEntry> = {}): LoreEntry {
  return {
    path,
    title: path,
    keys: keys.map(prepareKey),
    always: false,
    priority: 0,
    subject: null,
    body,
    ...extra,
  };
}

const count = (t: string) => t.length;
const paths = (xs: { entry: LoreEntry }[]) => xs.map((x) => x.entry.path);

describe("key matching", () => {
  it("matches Latin keys as whole words, ignoring case", () => {
    const k = prepareKey("Ann");
    expect(findKey("annual report", k)).toBe(-1);
    expect(findKey("the annex", k)).toBe(-1);
    expect(findKey("then ann, tired, left", k)).toBe(5);
    expect(findKey("ANN".toLowerCase(), prepareKey("Ann"))).toBe(0);
    expect(findKey("iron gate", prepareKey("Iron Gate"))).toBe(0);
  });

  it("matches Chinese keys inside running text (no word boundaries)", () => {
    expect(findKey("她走进青石城的城门", prepareKey("青石城"))).toBe(3);
    // A mixed key: its Latin edge needs a boundary, its Chinese edge does not.
    expect(findKey("来自k7号站的信", prepareKey("k7号"))).toBe(2);
    expect(findKey("来自ak7号站的信", prepareKey("k7号"))).toBe(-1);
  });
});

describe("canon activation", () => {
  const mara = entry("lorebook/mara.md", ["Mara"], "A smuggler. Sister of Tomas.");
  const tomas = entry("lorebook/tomas.md", ["Tomas"], "A priest of the Old Fane.");
  const fane = entry("lorebook/fane.md", ["Old Fane"], "A ruined temple.");
  const city = entry("lorebook/city.md", ["青石城", "Bluestone"], "港口城市。");

  it("activates by key and alias, English and Chinese, with the reason", () => {
    const a = activateCanon([mara, city], [{ source: "brief", text: "写一段青石城的夜景。" }], {
      budgetTokens: 1000,
      depth: 0,
      countTokens: count,
    });
    expect(paths(a.included)).toEqual(["lorebook/city.md"]);
    expect(a.included[0].reason).toEqual({ kind: "key", key: "青石城", source: "brief" });
    const b = activateCanon([mara, city], [{ source: "messages", text: "Mara sails to bluestone." }], {
      budgetTokens: 1000,
      depth: 0,
      countTokens: count,
    });
    expect(paths(b.included)).toEqual(["lorebook/mara.md", "lorebook/city.md"]);
    expect(b.included[1].reason).toEqual({ kind: "key", key: "Bluestone", source: "messages" });
  });

  it("recursion reaches as deep as the depth allows, and names the entry that triggered", () => {
    const working = [{ source: "brief", text: "Mara at the docks" }];
    const opts = { budgetTokens: 10_000, countTokens: count };
    expect(paths(activateCanon([mara, tomas, fane], working, { ...opts, depth: 0 }).included)).toEqual([
      "lorebook/mara.md",
    ]);
    const one = activateCanon([mara, tomas, fane], working, { ...opts, depth: 1 });
    expect(paths(one.included)).toEqual(["lorebook/mara.md", "lorebook/tomas.md"]);
    expect(one.included[1].reason).toEqual({
      kind: "recursion",
      key: "Tomas",
      via: "lorebook/mara.md",
      depth: 1,
    });
    expect(paths(activateCanon([mara, tomas, fane], working, { ...opts, depth: 2 }).included)).toEqual([
      "lorebook/mara.md",
      "lorebook/tomas.md",
      "lorebook/fane.md",
    ]);
  });

  it("cuts in the stated order: always, priority, round, earlier match; nothing lower takes a higher one's place", () => {
    const rule = entry("lorebook/rule.md", [], "R".repeat(10), { always: true });
    const late = entry("lorebook/late.md", ["zebra"], "L".repeat(10));
    const early = entry("lorebook/early.md", ["apple"], "E".repeat(10));
    const vip = entry("lorebook/vip.md", ["zebra"], "V".repeat(100), { priority: 5 });
    const small = entry("lorebook/small.md", ["zebra"], "S");
    const working = [{ source: "brief", text: "apple then zebra" }];
    const all = activateCanon([late, early, vip, rule, small], working, {
      budgetTokens: 100_000,
      depth: 0,
      countTokens: count,
    });
    expect(paths(all.included)).toEqual([
      "lorebook/rule.md",
      "lorebook/vip.md",
      "lorebook/early.md",
      "lorebook/late.md",
      "lorebook/small.md",
    ]);
    const sizes = all.included.map((x) => x.tokens);
    // Room for the always entry and the priority one, not the next: the rest is cut, small or not.
    const budget = sizes[0] + sizes[1] + sizes[2] - 1;
    const cut = activateCanon([late, early, vip, rule, small], working, {
      budgetTokens: budget,
      depth: 0,
      countTokens: count,
    });
    expect(paths(cut.included)).toEqual(["lorebook/rule.md", "lorebook/vip.md"]);
    expect(paths(cut.cut)).toEqual(["lorebook/early.md", "lorebook/late.md", "lorebook/small.md"]);
  });

  it("a budget of zero includes nothing and says what was cut", () => {
    const a = activateCanon([mara], [{ source: "brief", text: "Mara" }], {
      budgetTokens: 0,
      depth: 2,
      countTokens: count,
    });
    expect(a.included).toEqual([]);
    expect(paths(a.cut)).toEqual(["lorebook/mara.md"]);
  });
});

describe("lorebook front matter", () => {
  it("reads keys, aliases, always, priority and subject; a file without front matter is plain", () => {
    const p = parseLoreFile(
      "---\nkeys: Mara\naliases: [玛拉]\npriority: 3\nsubject: mara\n---\n# Mara\nText",
    );
    expect(p).toMatchObject({
      kind: "entry",
      meta: { keys: ["Mara"], aliases: ["玛拉"], priority: 3, subject: "mara", always: false },
      body: "# Mara\nText",
    });
    expect(parseLoreFile("# Just prose\n")).toEqual({ kind: "plain" });
  });

  it("reports broken front matter with its line", () => {
    expect(parseLoreFile("---\ntitle: ok\nkeys: [unclosed\n---\nbody")).toMatchObject({
      kind: "broken",
      line: 3,
    });
    expect(parseLoreFile("---\ntitle: ok\npriority: high\n---\nbody")).toMatchObject({
      kind: "broken",
      line: 3,
      message: expect.stringContaining("/priority"),
    });
    expect(parseLoreFile("---\nkeys: [a]\nno end")).toMatchObject({ kind: "broken", line: 1 });
  });
});
