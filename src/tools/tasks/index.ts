import { z } from "zod";
import { addTask, formatTasks, setTaskStatus, TaskStatusSchema } from "../../tasks/list.js";
import { sessionService } from "../control/session.js";
import { defineTool } from "../define.js";
import type { AnyTool } from "../types.js";

export const taskCreate = defineTool({
  key: "task_create",
  group: "tasks",
  scope: "session",
  ordering: "sequential",
  description:
    "Add a task to this session's task list (shown to you every turn). Use it to plan multi-step work; then mark progress with task_set_status.",
  input: z
    .object({
      title: z.string().trim().min(1).max(200).describe("short imperative title"),
      description: z.string().max(2000).optional().describe("details, acceptance criteria"),
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const service = sessionService(ctx, "tasks", "task_create");
    const tasks = addTask(service.list(), input.title, input.description);
    service.replace(tasks);
    const created = tasks[tasks.length - 1];
    return { text: `Created task ${created.id}.\n${formatTasks(tasks)}`, details: { created, tasks } };
  },
});

export const taskSetStatus = defineTool({
  key: "task_set_status",
  group: "tasks",
  scope: "session",
  ordering: "sequential",
  description:
    "Set a task's status: pending, in_progress (at most one at a time), completed or cancelled. Returns the whole list.",
  input: z
    .object({
      id: z.string().min(1).describe("task id, e.g. t1"),
      status: TaskStatusSchema,
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const service = sessionService(ctx, "tasks", "task_set_status");
    const tasks = setTaskStatus(service.list(), input.id, input.status);
    service.replace(tasks);
    return { text: `${input.id} is now ${input.status}.\n${formatTasks(tasks)}`, details: { tasks } };
  },
});

/** The task tools (seed: "Tasks"); session-bound. */
export const taskTools: AnyTool[] = [taskCreate, taskSetStatus];
