import { describe, expect, it } from "vitest";
import {
  appendEventsText,
  normalizeSubjectPath,
  parseEvents,
  parseMemories,
  serializeEvent,
  serializeMemories,
  tornTail,
} from "../../src/memory/files.js";
import { keywordQuery } from "../../src/memory/keyword-query.js";

describe("events.jsonl", () => {
  it("serialises text, tick, time in that order, trimming only the text", () => {
    expect(serializeEvent({ time: "dawn", tick: "000002", text: "Mira hears the bell." })).toBe(
      '{"text":"Mira hears the bell.","tick":"000002","time":"dawn"}',
    );
    const [e] = parseEvents("e.jsonl", '{"tick":" 01 ","text":"  Rain.  "}\n');
    expect(serializeEvent(e?.value ?? { text: "" })).toBe('{"text":"Rain.","tick":" 01 "}');
  });

  it("skips blank lines and names file:line on bad lines", () => {
    expect(parseEvents("e.jsonl", '\n{"text":"a"}\n\n{"text":"b"}\n').map((l) => l.line)).toEqual([2, 4]);
    expect(() => parseEvents("s/events.jsonl", '{"text":"a"}\n{oops\n')).toThrow(
      /^s\/events\.jsonl:2: invalid JSON/,
    );
    expect(() => parseEvents("s/events.jsonl", '{"text":"   "}')).toThrow(
      /s\/events\.jsonl:1\.text: must not be empty/,
    );
    expect(() => parseEvents("s/events.jsonl", '{"text":"a","tick":2}')).toThrow(/s\/events\.jsonl:1\.tick/);
  });

  it("appending keeps existing text byte for byte and only adds lines, each ending with a newline", () => {
    const before = '{"text":"old","extra":1}\n\n  \n';
    expect(appendEventsText(before, [{ text: "new", tick: "3" }])).toBe(
      `${before}{"text":"new","tick":"3"}\n`,
    );
    expect(appendEventsText(null, [{ text: "a" }, { text: "b" }])).toBe('{"text":"a"}\n{"text":"b"}\n');
    // A whole last line written without its newline (a hand edit) gets one before the new lines.
    expect(appendEventsText('{"text":"old"}', [{ text: "new" }])).toBe('{"text":"old"}\n{"text":"new"}\n');
  });

  it("a torn last line (an append cut short) is dropped with a warning, never half-parsed", () => {
    const warnings: string[] = [];
    const text = '{"text":"a"}\n{"text":"b"}\n{"text":"c","ti';
    const lines = parseEvents("s/events.jsonl", text, (w) => warnings.push(w));
    expect(lines.map((l) => l.value.text)).toEqual(["a", "b"]);
    expect(warnings).toEqual(["s/events.jsonl:3: an unfinished last line (an append cut short) was dropped"]);
    expect(tornTail(text)).toEqual({ keep: 26, line: 3 });
    // The same broken line with its newline is a whole line: an error that names it.
    expect(() => parseEvents("s/events.jsonl", `${text}\n`)).toThrow(/^s\/events\.jsonl:3: invalid JSON/);
    // The next append drops the torn line and goes on from the last whole one.
    expect(appendEventsText(text, [{ text: "d" }])).toBe('{"text":"a"}\n{"text":"b"}\n{"text":"d"}\n');
  });
});

describe("memory.jsonl", () => {
  it("serialises topic, view, aliases with a trailing newline; an empty set is an empty file", () => {
    expect(serializeMemories([{ aliases: ["the pink-haired girl"], view: "A friend.", topic: "Lin" }])).toBe(
      '{"topic":"Lin","view":"A friend.","aliases":["the pink-haired girl"]}\n',
    );
    expect(serializeMemories([])).toBe("");
  });

  it("refuses a duplicate topic, an empty view and an empty alias, with file:line", () => {
    const dup = '{"topic":"Lin","view":"x"}\n{"topic":" Lin ","view":"y"}\n';
    expect(() => parseMemories("m.jsonl", dup)).toThrow(
      /m\.jsonl:2: duplicate topic "Lin" \(first on line 1\)/,
    );
    expect(() => parseMemories("m.jsonl", '{"topic":"a","view":" "}')).toThrow(/m\.jsonl:1\.view/);
    expect(() => parseMemories("m.jsonl", '{"topic":"a","view":"v","aliases":[""]}')).toThrow(
      /m\.jsonl:1\.aliases\.0/,
    );
  });
});

describe("the subject path rule", () => {
  it("normalises backslashes, whitespace and a trailing slash", () => {
    expect(normalizeSubjectPath(" simulation\\subjects\\mira/ ")).toEqual({
      path: "simulation/subjects/mira",
      id: "mira",
    });
  });

  it.each([
    "/simulation/subjects/mira",
    "simulation/subjects",
    "simulation/subjects/..",
    "simulation/subjects/.",
    "simulation/subjects/mira/events.jsonl",
    "workspace/beta/simulation/subjects/mira",
    "notes/subjects/mira",
  ])("refuses %s", (p) => {
    expect(() => normalizeSubjectPath(p)).toThrow(/subjectPath must/);
  });
});

describe("keyword queries", () => {
  it("splits CJK runs into trigrams and keeps 1–2 character terms for substring search", () => {
    expect(keywordQuery("黛玉 林黛玉哭")).toEqual({
      phrases: ['"林黛玉"', '"黛玉哭"'],
      short: ["黛玉", "林黛", "玉哭"],
    });
    expect(keywordQuery('bell "tower" at')).toEqual({
      phrases: ['"bell"', '"tower"'],
      short: ["at"],
    });
  });
});
