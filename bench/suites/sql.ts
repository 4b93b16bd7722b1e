import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { plotDb } from "../../src/plot/db.js";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { type DispatchContext, dispatch } from "../../src/tools/dispatch.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { type BenchSuite, medianMs, round } from "../lib.js";

const CHAPTERS = 2000;

export const suite: BenchSuite = {
  name: "sql",
  description:
    "execute_sql: warm round trip through the SQL process vs the same query in-process, capped reads, cold start",
  async run(report) {
    const dir = mkdtempSync(join(tmpdir(), "nb-bench-sql-"));
    const ws = Workspace.init(join(dir, "ws"));
    try {
      const project = ws.createProject("novel");
      const db = plotDb(project);
      const insert = db.prepare(
        "INSERT INTO story_chapter (sort_order, name, title, brief_goal) VALUES (?, ?, ?, ?)",
      );
      db.transaction(() => {
        for (let i = 0; i < CHAPTERS; i++) insert.run(i, `ch-${i}`, `Chapter ${i}`, `Goal of chapter ${i}`);
      })();
      const dctx: DispatchContext = {
        registry: createToolRegistry(),
        workspace: ws,
        project,
        mode: "normal",
        profileKey: null,
        allow: "all",
      };
      const call = async (sql: string, params?: unknown[]) => {
        const r = await dispatch({ key: "execute_sql", input: { sql, params } }, dctx);
        if (!r.ok) throw new Error(r.error.message);
      };
      const byId = "SELECT id, name, title FROM story_chapter WHERE id = ?";
      let i = 0;
      const tool = await medianMs(() => call(byId, [(i++ % CHAPTERS) + 1]), { iterations: 200 });
      const direct = db.prepare(byId);
      const inProcess = await medianMs(() => direct.get((i++ % CHAPTERS) + 1), { iterations: 200 });
      report({
        name: "select_by_id_roundtrip",
        unit: "ms",
        value: round(tool),
        baseline: round(inProcess),
        ratio: round(inProcess / tool),
        target: "< 5 ms per call (validate, inspect and run in the SQL process)",
      });
      const capped = await medianMs(() => call("SELECT * FROM story_chapter ORDER BY sort_order"), {
        iterations: 30,
      });
      report({ name: "read_capped_200_of_2000_rows", unit: "ms", value: round(capped) });
      const cold = await medianMs(
        async () => {
          project.close();
          await call("SELECT 1");
        },
        { iterations: 5, warmup: 1 },
      );
      report({ name: "cold_start_first_call_after_project_close", unit: "ms", value: round(cold) });
    } finally {
      ws.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
