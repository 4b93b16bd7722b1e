// `nbook sessions rename|archive|restore|delete` against a real workspace: what each changes in
// the store, and that deleting refuses what would lose a record (an unarchived session, one with
// children, no --yes).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { SessionStore } from "../../src/harness/store/index.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { runNbook } from "../helpers.js";

describe("nbook sessions rename|archive|restore|delete", () => {
  let dir: string;
  let ws: Workspace;
  const ids: Record<string, string> = {};
  const nbook = (...args: string[]) => runNbook([...args, "--json"], { cwd: ws.root });
  const session = (id: string) => {
    const store = SessionStore.forWorkspace(ws);
    try {
      return store.listSessions().find((s) => s.id === id) ?? null;
    } finally {
      store.close();
    }
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "nbook-sessions-manage-"));
    ws = Workspace.init(join(dir, "ws"));
    const store = SessionStore.forWorkspace(ws);
    const profile = { key: "leader.default", initial: z.object({}) };
    ids.parent = store.createSession({ profile, title: "Parent" }).id;
    ids.child = store.createSession({ profile, title: "Child", parentSessionId: ids.parent }).id;
    ids.lone = store.createSession({ profile, title: "Lone" }).id;
    store.close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("renames a session", () => {
    const r = nbook("sessions", "rename", ids.lone, "  The drowned bell  ");
    expect(r.status, r.stderr).toBe(0);
    expect(session(ids.lone)?.title).toBe("The drowned bell");
  });

  it("archives and restores a session, which stays exportable while archived", () => {
    expect(nbook("sessions", "archive", ids.lone).status).toBe(0);
    expect(session(ids.lone)?.status).toBe("archived");
    expect(runNbook(["sessions", "export", ids.lone], { cwd: ws.root }).status).toBe(0);
    expect(nbook("sessions", "restore", ids.lone).status).toBe(0);
    expect(session(ids.lone)?.status).toBe("idle");
  });

  it("deletes only an archived session, only with --yes", () => {
    const unarchived = nbook("sessions", "delete", ids.lone, "--yes");
    expect(unarchived.status).not.toBe(0);
    expect(unarchived.stdout + unarchived.stderr).toContain("conflict");
    nbook("sessions", "archive", ids.lone);
    const unconfirmed = nbook("sessions", "delete", ids.lone);
    expect(unconfirmed.status).not.toBe(0);
    expect(unconfirmed.stdout + unconfirmed.stderr).toContain("--yes");
    expect(session(ids.lone)).not.toBeNull();
    expect(nbook("sessions", "delete", ids.lone, "--yes").status).toBe(0);
    expect(session(ids.lone)).toBeNull();
  });

  it("refuses to delete a session that started others, and keeps both", () => {
    nbook("sessions", "archive", ids.parent);
    const r = nbook("sessions", "delete", ids.parent, "--yes");
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toContain("started 1 session");
    expect(session(ids.parent)).not.toBeNull();
    expect(session(ids.child)?.parentSessionId).toBe(ids.parent);
  });
});
