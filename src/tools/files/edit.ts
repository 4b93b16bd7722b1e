import { z } from "zod";
import { type FieldError, NbError } from "../../core/errors.js";
import { detectLineEnding, fromLf, toLf } from "../../core/text.js";
import { writeProjectFile } from "../../workspace/anchored-fs.js";
import { defineTool } from "../define.js";
import { once } from "../once.js";
import type { ToolContext } from "../types.js";
import {
  authorize,
  filePreview,
  filesBasis,
  filesBasisSpec,
  filesChange,
  planToRun,
  readText,
  unifiedDiff,
  writeScope,
} from "./common.js";

const Input = z
  .object({
    path: z.string(),
    edits: z
      .array(
        z
          .object({
            oldText: z.string().min(1),
            newText: z.string(),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();

type Edit = z.infer<typeof Input>["edits"][number];

function lineAt(text: string, index: number): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

function occurrences(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) out.push(i);
  return out;
}

/** Apply edits to LF text: every oldText must match exactly once and no two may overlap. */
export function applyEdits(text: string, edits: Edit[], display: string): string {
  const problems: FieldError[] = [];
  const spans: { start: number; end: number; i: number; newText: string }[] = [];
  edits.forEach((e, i) => {
    const oldText = toLf(e.oldText);
    const hits = occurrences(text, oldText);
    const pointer = `/edits/${i}/oldText`;
    if (hits.length === 0)
      problems.push({
        pointer,
        message: "not found in the file (it must match exactly, including whitespace)",
      });
    else if (hits.length > 1) {
      const lines = hits.slice(0, 10).map((h) => lineAt(text, h));
      problems.push({
        pointer,
        message: `found ${hits.length} times (at lines ${lines.join(", ")}); add surrounding text to make it unique`,
      });
    } else spans.push({ start: hits[0], end: hits[0] + oldText.length, i, newText: toLf(e.newText) });
  });
  spans.sort((a, b) => a.start - b.start);
  for (let k = 1; k < spans.length; k++) {
    if (spans[k].start < spans[k - 1].end) {
      problems.push({ pointer: `/edits/${spans[k].i}/oldText`, message: `overlaps edit ${spans[k - 1].i}` });
    }
  }
  if (problems.length) {
    throw new NbError(
      "invalid_input",
      `Edit preflight failed for ${display}; nothing was written:\n${problems.map((p) => `${p.pointer}: ${p.message}`).join("\n")}`,
      { fields: problems },
    );
  }
  let out = text;
  for (const s of [...spans].reverse()) out = out.slice(0, s.start) + s.newText + out.slice(s.end);
  return out;
}

async function plan(input: z.infer<typeof Input>, ctx: ToolContext) {
  const r = authorize(ctx, input.path, "write");
  const before = await readText(r);
  const lf = toLf(before);
  const afterLf = applyEdits(lf, input.edits, r.display);
  const diff = () => unifiedDiff(r.display, lf, afterLf);
  const basis = filesBasis([{ display: r.display, before }]);
  return {
    r,
    before,
    after: fromLf(afterLf, detectLineEnding(before)),
    diff,
    basis,
    // Compared as LF text: edits that replace text with itself leave the file, line endings and all, alone.
    changed: afterLf !== lf,
    preview: () => ({ text: diff(), details: { path: r.display }, basis }),
  };
}

export const editTool = defineTool({
  key: "edit",
  group: "files",
  description:
    "Replace exact text in a file: each oldText occurs once in the original, edits do not overlap; all or nothing. Returns a diff.",
  input: Input,
  effect: "write",
  basis: filesBasisSpec("edit"),
  prepare(input, ctx) {
    const prepared = once(() => plan(input, ctx));
    return {
      effect: "write",
      targets: [input.path],
      preview: async () => filePreview(await prepared()),
      async run(grant) {
        const { r, after, diff, changed, basis } = await planToRun(grant, ctx, "edit", prepared, () =>
          plan(input, ctx),
        );
        if (!changed) {
          return {
            text: `Unchanged: the edits leave ${r.display} as it is`,
            details: { path: r.display, diff: "", unchanged: true },
            change: "unchanged",
          };
        }
        await writeProjectFile(r, after, writeScope(grant.writes, ctx));
        const text = diff();
        const n = input.edits.length;
        const head = `Edited ${r.display} (${n} replacement${n > 1 ? "s" : ""})`;
        return {
          text: `${head}\n${text}`,
          details: { path: r.display, diff: text },
          change: filesChange(basis, [{ display: r.display, after }], head),
        };
      },
    };
  },
});
