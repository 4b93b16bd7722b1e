import { z } from "zod";
import { NbError } from "../core/errors.js";
import type { TaskItem } from "../harness/events.js";

/** Where a task of the in-session list stands; at most one is in progress. */
export const TaskStatusSchema = z.enum(["pending", "in_progress", "completed", "cancelled"]);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** Append a new pending task; ids are short and sequential (`t1`, `t2`, …) so models can cite them. */
export function addTask(tasks: readonly TaskItem[], title: string, description?: string): TaskItem[] {
  const next = tasks.reduce((n, t) => Math.max(n, Number(t.id.slice(1)) || 0), 0) + 1;
  const task: TaskItem = { id: `t${next}`, title: title.trim(), status: "pending" };
  if (description?.trim()) task.description = description.trim();
  return [...tasks, task];
}

/**
 * Set one task's status. At most one task is in progress: starting one puts the previous
 * in-progress task back to pending, so the list always says what is being worked on now.
 */
export function setTaskStatus(tasks: readonly TaskItem[], id: string, status: TaskStatus): TaskItem[] {
  if (!tasks.some((t) => t.id === id)) {
    const known = tasks.map((t) => t.id).join(", ") || "none; create one with task_create";
    throw new NbError("not_found", `No task ${id} (tasks: ${known})`, {
      fields: [{ pointer: "/id", message: "unknown task" }],
    });
  }
  return tasks.map((t) => {
    if (t.id === id) return { ...t, status };
    if (status === "in_progress" && t.status === "in_progress") return { ...t, status: "pending" };
    return t;
  });
}

const MARK: Record<TaskStatus, string> = {
  pending: "[ ]",
  in_progress: "[~]",
  completed: "[x]",
  cancelled: "[-]",
};

/** The task list as the model and the CLI see it. */
export function formatTasks(tasks: readonly TaskItem[]): string {
  if (tasks.length === 0) return "(no tasks)";
  return tasks
    .map(
      (t) =>
        `${MARK[t.status]} ${t.id} ${t.title}${t.status === "in_progress" ? " (in progress)" : ""}${t.description ? ` — ${t.description}` : ""}`,
    )
    .join("\n");
}
