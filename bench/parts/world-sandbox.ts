import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newQuickJSWASMModule } from "quickjs-emscripten";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { type DispatchContext, dispatch } from "../../src/tools/dispatch.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { loadSandbox, runScriptSync } from "../../src/world/sandbox/index.js";
import { warmWorldSandbox } from "../../src/world/script/run.js";
import { openWorld } from "../../src/world/world.js";
import { type BenchSuite, medianMs, round } from "../lib.js";

const SUBJECTS = 200;

/** Part of the `world` suite (`npm run bench -- world`). */
export const sandboxFigures: BenchSuite = {
  name: "world-sandbox",
  description:
    "execute_world through dispatch (a warm sandbox worker, a fresh QuickJS runtime per call) vs the bare sandbox in this thread and the direct domain call",
  async run(report) {
    const dir = mkdtempSync(join(tmpdir(), "nb-bench-world-sandbox-"));
    const ws = Workspace.init(join(dir, "ws"));
    try {
      const project = ws.createProject("novel");
      const world = openWorld(project);
      world.transaction(() => {
        for (let i = 0; i < SUBJECTS; i++) {
          world.slice.write({
            time: 1000 + i,
            patches: [{ subjectId: `c${i}`, type: "character", path: "/hp", op: "replace", value: i }],
          });
        }
      });
      const registry = createToolRegistry();
      const dctx = (binding?: { access: string }): DispatchContext => ({
        registry,
        workspace: ws,
        project,
        mode: "normal",
        profileKey: null,
        allow: binding ? new Map([["execute_world", binding]]) : "all",
      });
      const rw = dctx();
      const ro = dctx({ access: "readonly" });
      const call = async (code: string, ctx: DispatchContext) => {
        const r = await dispatch({ key: "execute_world", input: { code } }, ctx);
        if (!r.ok) throw new Error(r.error.message);
      };
      const boot = process.hrtime.bigint();
      await warmWorldSandbox();
      report({
        name: "sandbox_worker_start",
        unit: "ms",
        value: round(Number(process.hrtime.bigint() - boot) / 1e6),
        target: "once per process (a worker loads its modules and QuickJS; from TypeScript sources here)",
      });
      await loadSandbox();

      const bare = await medianMs(() => runScriptSync({ code: "return 1" }), { iterations: 300 });
      report({ name: "sandbox_trivial_run", unit: "ms", value: round(bare) });

      const trivial = await medianMs(() => call("return world.time.now()", rw), { iterations: 300 });
      report({
        name: "execute_world_trivial_roundtrip",
        unit: "ms",
        value: round(trivial),
        baseline: round(bare),
        ratio: round(bare / trivial),
        target:
          "< 5 ms median (validate, post to the worker, transaction, fresh QuickJS runtime, JSON bridge, reply)",
      });

      const readonly = await medianMs(() => call("return world.time.now()", ro), { iterations: 300 });
      report({ name: "execute_world_trivial_roundtrip_readonly", unit: "ms", value: round(readonly) });

      let i = 0;
      const get = await medianMs(() => call(`return world.subject.get("c${i++ % SUBJECTS}").hp`, rw), {
        iterations: 300,
      });
      const direct = await medianMs(() => world.subject.get(`c${i++ % SUBJECTS}`), { iterations: 300 });
      report({
        name: "execute_world_subject_get",
        unit: "ms",
        value: round(get),
        baseline: round(direct),
        ratio: round(direct / get),
      });

      let t = 10_000;
      const write = await medianMs(
        () =>
          call(
            `world.slice.write({ time: ${t++}, patches: [{ subjectId: "c1", path: "/hp", op: "increment", value: 1 }] })`,
            rw,
          ),
        { iterations: 100 },
      );
      report({ name: "execute_world_write_one_slice", unit: "ms", value: round(write) });

      // An approval in a read-only mode: the dry run for the preview, then the replay that commits
      // only if it makes the same writes.
      const discuss: DispatchContext = { ...rw, mode: "discuss" };
      const approve = await medianMs(
        async () => {
          const input = {
            code: `world.slice.write({ time: ${t++}, patches: [{ subjectId: "c2", path: "/hp", op: "increment", value: 1 }] })`,
          };
          const p = await dispatch({ key: "execute_world", input }, discuss);
          if (p.ok) throw new Error("expected an approval");
          const basis = (p.error.details as { preview: { basis: unknown } }).preview.basis;
          const r = await dispatch(
            { key: "execute_world", input },
            { ...discuss, approved: true, approvedBasis: basis },
          );
          if (!r.ok) throw new Error(r.error.message);
        },
        { iterations: 50 },
      );
      report({ name: "execute_world_preview_then_approve_one_slice", unit: "ms", value: round(approve) });

      const cold = await medianMs(() => newQuickJSWASMModule(), { iterations: 5, warmup: 1 });
      report({ name: "quickjs_module_load_cold", unit: "ms", value: round(cold) });
    } finally {
      ws.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
