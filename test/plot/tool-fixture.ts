import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Mode } from "../../src/core/modes.js";
import { type Allowlist, dispatch } from "../../src/tools/dispatch.js";
import { plotTools } from "../../src/tools/plot/index.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import type { DispatchResult } from "../../src/tools/types.js";
import type { Project } from "../../src/workspace/project.js";
import { Workspace } from "../../src/workspace/workspace.js";

/** A workspace with one project and a registry of the plot tools, for tests. */
export function plotFixture(language: "en" | "zh" = "en") {
  const dir = mkdtempSync(join(tmpdir(), "nb-plot-"));
  const workspace = Workspace.init(dir);
  const project: Project = workspace.createProject("novel", { title: "The Novel", language });
  const registry = new ToolRegistry(plotTools);
  /** Call a tool through the full dispatch. */
  const call = (
    key: string,
    input: unknown,
    opts: { mode?: Mode; profileKey?: string | null; allow?: Allowlist } = {},
  ) =>
    dispatch(
      { key, input },
      {
        registry,
        workspace,
        project,
        mode: opts.mode ?? "normal",
        profileKey: opts.profileKey ?? null,
        allow: opts.allow ?? "all",
      },
    );
  /** Call a tool and return its details, failing loudly on an error. */
  const ok = async <T = any>(
    key: string,
    input: unknown,
    opts: { profileKey?: string | null } = {},
  ): Promise<T> => {
    const r: DispatchResult = await call(key, input, opts);
    if (!r.ok) throw new Error(`${key} failed: ${r.error.code} ${r.error.message}`);
    return r.details as T;
  };
  /** Create a row with a save_* tool (action "create") and return its id. */
  const create = async (key: string, input: Record<string, unknown>): Promise<number> =>
    (await ok(key, { action: "create", ...input })).id;
  /** Call a tool that must fail and return its error. */
  const fail = async (key: string, input: unknown) => {
    const r = await call(key, input);
    if (r.ok) throw new Error(`${key} should have failed`);
    return r.error;
  };
  return {
    workspace,
    project,
    registry,
    call,
    ok,
    create,
    fail,
    cleanup() {
      workspace.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
