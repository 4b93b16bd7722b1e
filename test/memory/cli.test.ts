import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestBed, runNbookInProcess, type TestBed } from "../helpers.js";

let bed: TestBed;
beforeEach(() => {
  bed = makeTestBed("saltmarsh", { sample: true });
});
afterEach(() => bed.cleanup());

const nbook = (...args: string[]) => runNbookInProcess(["memory", ...args], { cwd: bed.project.root });

describe("nbook memory on the sample novel", () => {
  it("lists the sample's two subjects with their counts", async () => {
    const r = await nbook("subjects", "--json");
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      subjects: [
        { id: "mira", path: "simulation/subjects/mira", events: 4, memories: 3 },
        { id: "tomas", path: "simulation/subjects/tomas", events: 2, memories: 2 },
      ],
    });
  });

  it("searches one subject's sources, and only that subject", async () => {
    const r = await nbook("search", "mira", "ledger page");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "events tick=000002 time=12 Fog 91 AL, 12:40\nMira saw that the ledger's page",
    );
    expect(r.stdout).toContain("memory topic=the bell-ledger");
    expect(r.stdout).not.toContain("I cut it out myself");

    const t = await nbook("search", "tomas", "ledger page", "--source", "memory", "--json");
    const out = JSON.parse(t.stdout) as {
      retrieval: string;
      results: { source: string; hits: { text: string }[] }[];
    };
    expect(out.retrieval).toBe("keyword");
    expect(out.results.map((x) => x.source)).toEqual(["memory"]);
    expect(out.results[0]?.hits[0]?.text).toMatch(/^the missing ledger page: I cut it out myself/);
  });

  it("shows a subject, refuses a missing one, and reindex rebuilds from the files", async () => {
    const s = await nbook("show", "tomas");
    expect(s.stdout).toContain("## Memory (2)\n- Mira Vale (also: the girl, my apprentice): My apprentice");
    const missing = await nbook("show", "nobody");
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain(
      "No subject at simulation/subjects/nobody. The project's subjects: mira, tomas (nbook memory subjects lists them)",
    );

    writeFileSync(join(bed.project.root, "simulation/subjects/tomas/events.jsonl"), '{"text":"only one"}\n');
    const re = await nbook("reindex", "--json");
    expect(JSON.parse(re.stdout)).toEqual({
      subjects: [
        { id: "mira", events: 4, memory: 3, embedded: 0 },
        { id: "tomas", events: 1, memory: 2, embedded: 0 },
      ],
    });
  });
});
