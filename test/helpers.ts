import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ProfileCatalog } from "../src/profiles/catalog.js";
import { createToolRegistry } from "../src/tools/builtin.js";
import { type DispatchContext, dispatch } from "../src/tools/dispatch.js";
import type { Mode } from "../src/tools/types.js";
import type { Project } from "../src/workspace/project.js";
import { type CreateProjectOptions, Workspace } from "../src/workspace/workspace.js";

/** The CLI entry point every CLI test spawns; it runs the compiled dist/, which test/global-setup.ts builds. */
export const NBOOK_BIN = fileURLToPath(new URL("../bin/nbook", import.meta.url));

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

/** Run `./bin/nbook` synchronously in `cwd`; `env` adds to (or, with "", blanks) the process environment. */
export function runNbook(
  args: string[],
  opts: { cwd: string; env?: Record<string, string>; input?: string },
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(NBOOK_BIN, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    encoding: "utf8",
    input: opts.input,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
