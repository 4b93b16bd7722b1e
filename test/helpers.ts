import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ProfileCatalog } from "../src/profiles/catalog.js";
import { createToolRegistry } from "../src/tools/builtin.js";
import { type DispatchContext, dispatch } from "../src/tools/dispatch.js";
import type { Mode } from "../src/tools/types.js";
import type { Project } from "../src/workspace/project.js";
import { type CreateProjectOptions, Workspace } from "../src/workspace/workspace.js";

/** A throw-away workspace with one project, and a dispatch bound to it. */
export interface TestBed {
  dir: string;
  ws: Workspace;
  project: Project;
  catalog: ProfileCatalog;
  /** Run a tool through the full dispatch, as `profile` (or a trusted user) in `mode`. */
  call(
    key: string,
    input: unknown,
    opts?: { profile?: string; mode?: Mode; approved?: boolean; project?: Project | null },
  ): ReturnType<typeof dispatch>;
  cleanup(): void;
}

/** Create a workspace in a temp folder with a project named `name`. */
export function makeTestBed(name = "novel", opts: CreateProjectOptions = {}): TestBed {
  const dir = mkdtempSync(join(tmpdir(), "nbook-test-"));
  const ws = Workspace.init(join(dir, "ws"));
  const project = ws.createProject(name, opts);
  const registry = createToolRegistry();
  const catalog = new ProfileCatalog(registry, ws, project);
  return {
    dir,
    ws,
    project,
    catalog,
    call(key, input, o = {}) {
      const dctx: DispatchContext = {
        registry,
        workspace: ws,
        project: o.project === undefined ? project : o.project,
        mode: o.mode ?? "normal",
        profileKey: o.profile ?? null,
        allow: o.profile ? catalog.allowlist(o.profile) : "all",
        approved: o.approved,
      };
      return dispatch({ key, input }, dctx);
    },
    cleanup() {
      ws.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
