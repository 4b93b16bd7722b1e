import type { Command } from "commander";
import { NbError } from "../core/errors.js";
import { SessionStore } from "../harness/store/index.js";
import { Workspace } from "../workspace/workspace.js";
import { printJson, reportCliError, writeOut } from "./output.js";

interface Opts {
  workspace?: string;
  json?: boolean;
  yes?: boolean;
}

function withStore<T>(workspace: string | undefined, fn: (store: SessionStore) => T): T {
  const store = SessionStore.forWorkspace(Workspace.discover({ workspace }));
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

/** Run one change and print what it did (or its error, as every nbook command does). */
function act(o: Opts, fn: (store: SessionStore) => { json: unknown; line: string }): void {
  try {
    const r = withStore(o.workspace, fn);
    if (o.json) printJson(r.json);
    else writeOut(`${r.line}\n`);
  } catch (e) {
    reportCliError(e, o.json);
  }
}

/** `nbook sessions rename|archive|restore|delete`: a session's title and place in the lists. */
export function registerSessionManagement(sessions: Command): void {
  sessions
    .command("rename")
    .description("Give a session a new title")
    .argument("<id>", "session id")
    .argument("<title>", "the new title (up to 200 characters; empty clears it)")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print the session as JSON")
    .action((id: string, title: string, o: Opts) =>
      act(o, (store) => {
        const s = store.updateSession(id, { title: title.trim() });
        return { json: s, line: `Session ${s.id} is now "${s.title}".` };
      }),
    );
  sessions
    .command("archive")
    .description(
      "Archive a session: it takes no more messages and leaves the workbench's list, but can still be shown and exported",
    )
    .argument("<id>", "session id")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print the session as JSON")
    .action((id: string, o: Opts) =>
      act(o, (store) => {
        const s = store.setArchived(id, true);
        return { json: s, line: `Session ${s.id} archived (nbook sessions restore ${s.id} brings it back).` };
      }),
    );
  sessions
    .command("restore")
    .description("Restore an archived session (idle again)")
    .argument("<id>", "session id")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print the session as JSON")
    .action((id: string, o: Opts) =>
      act(o, (store) => {
        const s = store.setArchived(id, false);
        return { json: s, line: `Session ${s.id} is ${s.status}.` };
      }),
    );
  sessions
    .command("delete")
    .description(
      "Delete an archived session and its transcript for good; refused when it started other sessions, owns jobs, made model calls (they count in usage) or has approvals waiting",
    )
    .argument("<id>", "session id")
    .option("--yes", "confirm the deletion (required)")
    .option("--workspace <dir>", "workspace root")
    .option("--json", "print JSON")
    .action((id: string, o: Opts) =>
      act(o, (store) => {
        if (!o.yes) throw new NbError("invalid_input", `Deleting session ${id} cannot be undone: add --yes`);
        store.deleteSession(id);
        return { json: { deleted: id }, line: `Session ${id} deleted.` };
      }),
    );
}
