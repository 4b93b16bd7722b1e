import { recordPlotRows } from "../plot/change-log.js";
import type { PlotDb } from "../plot/db.js";
import type { Project } from "../workspace/project.js";
import { newChangeId } from "./ids.js";
import { beginRecording } from "./recording.js";

/**
 * Run a plot write the user makes outside the call pipeline (`nbook plot delete`, the phase
 * commands) as one recorded change by you: its rows are logged under the change id in the write's
 * own transaction, then indexed with `tool` and the summary made of its result. A history that
 * cannot record says so once and never stops the write; a write that throws records nothing.
 */
export async function recordedPlotWrite<T>(
  project: Project,
  db: PlotDb,
  tool: string,
  write: () => T,
  summary: (value: T) => string,
): Promise<T> {
  const id = newChangeId();
  const recording = await beginRecording(project, id, []);
  let value: T;
  try {
    value = recordPlotRows(db, recording ? id : undefined, write);
  } catch (e) {
    recording?.drop();
    throw e;
  }
  await recording?.finish(
    { tool, session: null, profile: null, callId: null },
    { summary: summary(value), targets: [], rows: true },
  );
  return value;
}
