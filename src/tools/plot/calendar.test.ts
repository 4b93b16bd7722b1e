import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { plotFixture } from "../../../test/plot/tool-fixture.js";
import { CALENDAR_FILE } from "../../world/calendar/index.js";

let f: ReturnType<typeof plotFixture>;
afterEach(() => f.cleanup());

/** A calendar whose text form is JavaScript run in the sandbox: "Year <n>", 400-day years. */
const SCRIPTED = `type: custom
months: [{ name: Long, days: 400 }]
script: |
  function format(s, d) { return 'Year ' + d.year }
  function parse(t) { return { year: Number(t.slice(5)) } }
`;

it("converts calendar strings both ways with a calendar scripted in JavaScript", async () => {
  f = plotFixture();
  writeFileSync(join(f.project.root, CALENDAR_FILE), SCRIPTED);
  const thread = await f.create("save_story_thread", { name: "t", title: "T" });
  const chapter = await f.create("save_story_chapter", { name: "c", title: "C" });
  const scene = await f.ok("save_story_scene", {
    action: "create",
    threadId: thread,
    chapterId: chapter,
    title: "S",
    worldAnchor: { startTime: "Year 2", endTime: "Year 3" },
  });
  expect(scene.worldAnchor).toMatchObject({
    startInstant: 400 * 86_400,
    endInstant: 2 * 400 * 86_400,
    startTime: "Year 2",
    endTime: "Year 3",
  });
  const brief = await f.call("get_chapter_writer_brief", { chapterId: chapter });
  expect(brief.ok && brief.text).toContain("- Time: Year 2 ~ Year 3");
});
