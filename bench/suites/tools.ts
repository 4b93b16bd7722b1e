import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createToolRegistry } from "../../src/tools/builtin.js";
import { type DispatchContext, dispatch } from "../../src/tools/dispatch.js";
import { projectPatchFiles } from "../../src/tools/files/apply-patch.js";
import { applyChunks, commitChanges, type FileChange, planPatch } from "../../src/tools/files/patch/apply.js";
import { parsePatch } from "../../src/tools/files/patch/parse.js";
import { type ResolvedPath, resolveFileAddress } from "../../src/workspace/paths.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { type BenchSuite, medianMs, medianTimes } from "../lib.js";

function makePatch(lines: string[], hunks: number): string {
  const out = ["*** Begin Patch", "*** Update File: big.md"];
  const step = Math.floor(lines.length / hunks);
  for (let h = 0; h < hunks; h++) {
    const at = h * step + Math.floor(step / 2);
    out.push("@@");
    for (let k = at - 3; k < at; k++) out.push(` ${lines[k]}`);
    out.push(`-${lines[at]}`, `+${lines[at]} (revised)`);
    for (let k = at + 1; k <= at + 3; k++) out.push(` ${lines[k]}`);
  }
  out.push("*** End Patch");
  return out.join("\n");
}

/** The middle value of a list of numbers. */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export const suite: BenchSuite = {
  name: "tools",
  description: "dispatch overhead and apply_patch",
  async run(report) {
    const dir = mkdtempSync(join(tmpdir(), "nbook-bench-tools-"));
    try {
      const ws = Workspace.init(join(dir, "ws"));
      const project = ws.createProject("bench");
      const file = join(project.root, "lorebook", "four-k.md");
      writeFileSync(file, `${"The bell rang under a clear sky.\n".repeat(128)}`.slice(0, 4096));
      const dctx: DispatchContext = {
        registry: createToolRegistry(),
        workspace: ws,
        project,
        mode: "normal",
        profileKey: "leader.default",
        allow: new Map([
          ["read", {}],
          ["apply_patch", {}],
        ]),
      };
      // Interleaved pairs, so both sides see the same machine load; the overhead is the median of the pair differences.
      const call = () => dispatch({ key: "read", input: { path: "lorebook/four-k.md" } }, dctx);
      for (let i = 0; i < 200; i++) {
        await readFile(file, "utf8");
        await call();
      }
      const bares: number[] = [];
      const viaDispatch: number[] = [];
      const diffs: number[] = [];
      for (let i = 0; i < 4000; i++) {
        const t0 = performance.now();
        await readFile(file, "utf8");
        const t1 = performance.now();
        await call();
        const t2 = performance.now();
        bares.push(t1 - t0);
        viaDispatch.push(t2 - t1);
        diffs.push(t2 - t1 - (t1 - t0));
      }
      const bare = median(bares);
      const viaDispatchMs = median(viaDispatch);
      report({ name: "bare_fs_readFile_4k", unit: "us", value: bare * 1000 });
      report({
        name: "dispatch_read_4k",
        unit: "us",
        value: viaDispatchMs * 1000,
        baseline: bare * 1000,
        ratio: viaDispatchMs / bare,
      });
      report({
        name: "dispatch_overhead_per_call",
        unit: "us",
        value: median(diffs) * 1000,
        target: "< 100 us",
      });

      const LINES = 100_000;
      const lines = Array.from(
        { length: LINES },
        (_, i) => `Line ${i + 1}: the tide came in through creek ${i % 7}.`,
      );
      const big = join(project.root, "big.md");
      const original = `${lines.join("\n")}\n`;
      const patch = makePatch(lines, 20);
      writeFileSync(big, original);
      // Matching: place the 20 hunks in the text and build the new text (in memory).
      const ops = parsePatch(patch);
      const chunks = ops[0].kind === "update" ? ops[0].chunks : [];
      const match = await medianTimes(() => applyChunks(original, chunks, "big.md"), {
        iterations: 30,
        warmup: 3,
      });
      report({
        name: `apply_patch_match_20_hunks_${LINES / 1000}k_lines`,
        unit: "ms",
        value: match.wall,
        target: "< 20 ms",
      });
      // CPU time of the same calls: steadier than wall time when other work shares the machine.
      report({ name: `apply_patch_match_20_hunks_${LINES / 1000}k_lines_cpu`, unit: "ms", value: match.cpu });
      // Planning as the tool does it: read the file, match, build the new text and its diff (nothing written).
      const resolve = (p: string) => resolveFileAddress(ws, project, p);
      // Planning reads only; the write step is granted writes, as a normal-mode call is.
      const files = projectPatchFiles({ mode: "normal", project }, "any");
      let planned: FileChange<ResolvedPath>[] = [];
      const planMs = await medianMs(
        async () => {
          planned = await planPatch(parsePatch(patch), resolve, files);
        },
        { iterations: 30, warmup: 3 },
      );
      if (planned.length !== 1 || !planned[0].after?.includes("(revised)"))
        throw new Error("patch not planned");
      report({ name: `apply_patch_read_and_plan_${LINES / 1000}k_lines`, unit: "ms", value: planMs });
      // The write: through the checked parent folder, temp file, fsync, rename.
      const writeMs = await medianMs(() => commitChanges(planned, files), { iterations: 30, warmup: 3 });
      report({ name: `apply_patch_fsync_write_${LINES / 1000}k_lines`, unit: "ms", value: writeMs });
      // The whole tool call through dispatch (the file is restored before each call; that time is taken off).
      const applyMs = await medianMs(
        async () => {
          writeFileSync(big, original);
          const r = await dispatch({ key: "apply_patch", input: { patch } }, dctx);
          if (!r.ok) throw new Error(r.error.message);
        },
        { iterations: 30, warmup: 3 },
      );
      const rewriteMs = await medianMs(() => writeFileSync(big, original), { iterations: 30, warmup: 3 });
      if (!readFileSync(big, "utf8").startsWith("Line 1:")) throw new Error("bench file corrupted");
      report({
        name: `apply_patch_20_hunks_${LINES / 1000}k_lines`,
        unit: "ms",
        value: applyMs - rewriteMs,
      });
      ws.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
