import { isNbError } from "../core/errors.js";
import { visibleControls } from "../core/text.js";
import type { Project } from "../workspace/project.js";
import { GIT_MISSING } from "./git.js";
import { History, type PendingWrite, type WriteOrigin, type WriteOutcome } from "./history.js";
import type { Change } from "./schema.js";

/** Where the history's notices go (a door may send them elsewhere than stderr). */
let notify: (line: string) => void = (line) => process.stderr.write(visibleControls(`${line}\n`));
const told = new Set<string>();

/** Send the history's notices (git missing, history unwritable) to `fn` instead of stderr. */
export function setHistoryNotices(fn: (line: string) => void): void {
  notify = fn;
}

/** Tell the user once per process: a history that cannot record must never block a write. */
function tellOnce(e: unknown): void {
  const missingGit = isNbError(e) && e.message === GIT_MISSING;
  const text = missingGit
    ? `notice: ${GIT_MISSING}`
    : `notice: this change was not recorded in the history (${isNbError(e) ? e.message : "unexpected error"}); run \`nbook history repair\``;
  const key = missingGit ? "git" : "broken";
  if (told.has(key)) return;
  told.add(key);
  notify(text);
}

/** One write being recorded: finish it with what it did, or drop it when it changed nothing. */
export interface Recording {
  finish(origin: WriteOrigin, outcome: WriteOutcome): Promise<Change | null>;
  drop(): void;
}

/**
 * Start recording a write of `project` under change id `id` (outside edits to its targets are
 * recorded first). Never throws: a history that cannot record says so once, and the write goes on.
 */
export async function beginRecording(
  project: Project,
  id: string,
  targets: readonly string[] | null,
): Promise<Recording | null> {
  const history = History.of(project);
  let pending: PendingWrite;
  try {
    pending = await history.begin(id, targets);
  } catch (e) {
    tellOnce(e);
    return null;
  }
  return {
    async finish(origin, outcome) {
      try {
        return await history.finish(pending, origin, outcome);
      } catch (e) {
        tellOnce(e);
        return null;
      }
    },
    drop: () => history.drop(pending),
  };
}
