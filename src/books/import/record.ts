import { History } from "../../history/history.js";
import { newChangeId } from "../../history/ids.js";
import type { Project } from "../../workspace/project.js";

/** The import as one change of the project's history (actor `import`), begun before it writes. */
export interface ImportChange {
  id: string;
  finish(summary: string, targets: readonly string[] | null): Promise<boolean>;
  drop(): void;
}

/**
 * Begin the import's change in `project`'s history (edits made outside NeuroBook to `targets` are
 * recorded first, as the history does before every write). A history that cannot record (no git)
 * never stops the import: this is then null, and `finish` of one that fails answers false.
 */
export async function beginImportChange(
  project: Project,
  targets: readonly string[] | null,
): Promise<ImportChange | null> {
  const history = History.of(project);
  const id = newChangeId();
  let pending: Awaited<ReturnType<History["begin"]>>;
  try {
    pending = await history.begin(id, targets);
  } catch {
    return null;
  }
  return {
    id,
    async finish(summary, paths) {
      try {
        await history.finish(
          pending,
          { tool: "import", session: null, profile: null, callId: null },
          { summary, targets: paths, rows: true },
          { actor: "import", reverts: [] },
        );
        return true;
      } catch {
        return false;
      }
    },
    drop: () => history.drop(pending),
  };
}
