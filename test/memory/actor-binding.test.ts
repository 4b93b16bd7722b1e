import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type HarnessFixture, harnessFixture } from "../harness-fixture.js";

let fx: HarnessFixture;
afterEach(() => fx.close());

const MIRA = "simulation/subjects/mira";
const TOMAS = "simulation/subjects/tomas";

describe("an actor session's subject binding reaches the memory tools", () => {
  it("searches its own subject and is refused another's, from the session's initial.subjectPath", async () => {
    fx = harnessFixture([
      {
        toolCalls: [
          {
            name: "subject_rag_search",
            input: { subjectPath: MIRA, query: "ledger page", sources: ["memory"] },
          },
        ],
      },
      {
        expect: { lastToolResult: "1. memory topic=the bell-ledger" },
        toolCalls: [
          {
            name: "subject_rag_search",
            input: { subjectPath: TOMAS, query: "ledger page", sources: ["memory"] },
          },
        ],
      },
      {
        expect: {
          lastToolResult: "simulator.actor plays simulation/subjects/mira and may reach only its own memory",
        },
        toolCalls: [
          {
            name: "subject_event_append",
            input: { subjectPath: TOMAS, events: [{ text: "Mira wrote in Tomas's memory." }] },
          },
        ],
      },
      {
        expect: { lastToolResult: "may reach only its own memory" },
        toolCalls: [
          {
            name: "report_result",
            input: {
              result: "done",
              data: {
                visible_response: "She closes the ledger.",
                spoken_dialogue: "",
                inner_response: "A page is gone.",
              },
            },
          },
        ],
      },
    ]);
    const before = readFileSync(join(fx.project.root, TOMAS, "events.jsonl"), "utf8");
    const s = fx.harness.createSession({
      profileKey: "simulator.actor",
      project: "novel",
      initial: { subjectPath: MIRA, kind: "npc" },
    });
    const r = await fx.harness.invoke(s.id, {
      mode: "prompt",
      message: "What do you remember about the ledger?",
    });
    expect(r.status, r.error?.message).toBe("completed");
    expect(readFileSync(join(fx.project.root, TOMAS, "events.jsonl"), "utf8")).toBe(before);
  });
});
