import type { TaskItem } from "../../harness/events.js";

/**
 * What the task tools need from the harness: the branch's task list and a way to replace it.
 * The harness stores the new list with the step, so it follows the branch.
 */
export interface TaskService {
  list(): TaskItem[];
  replace(tasks: TaskItem[]): void;
}
