import { describe, expect, it } from "vitest";
import { addTask, formatTasks, setTaskStatus } from "./list.js";

describe("task list", () => {
  it("numbers tasks after the highest id, so ids stay unique after removals on another branch", () => {
    const list = addTask(addTask([], "Read canon"), "Draft", "  chapter 3  ");
    expect(list.map((t) => t.id)).toEqual(["t1", "t2"]);
    expect(list[1].description).toBe("chapter 3");
    expect(addTask([list[1]], "Edit").at(-1)?.id).toBe("t3");
  });

  it("keeps at most one task in progress and refuses unknown ids with a pointer", () => {
    let list = addTask(addTask([], "a"), "b");
    list = setTaskStatus(list, "t1", "in_progress");
    list = setTaskStatus(list, "t2", "in_progress");
    expect(list.map((t) => t.status)).toEqual(["pending", "in_progress"]);
    expect(() => setTaskStatus(list, "t7", "completed")).toThrow(
      expect.objectContaining({ code: "not_found", fields: [{ pointer: "/id", message: "unknown task" }] }),
    );
    expect(formatTasks(setTaskStatus(list, "t1", "completed"))).toBe("[x] t1 a\n[~] t2 b (in progress)");
  });
});
