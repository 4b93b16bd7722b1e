import { statSync } from "node:fs";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { MAX_BYTES, MAX_LINES } from "../../core/truncate.js";
import { readSkillText, resolveSkillFile, SKILL_SCHEME } from "../../skills/index.js";
import { type FolderToList, listFolderWithin } from "../../workspace/anchored-fs.js";
import { defineTool } from "../define.js";
import type { ToolResult } from "../types.js";
import { readBashOutput } from "./bash-output.js";
import { authorize, readText } from "./common.js";

const Input = z
  .object({
    path: z
      .string()
      .describe("relative to the project, or workspace/<project>/<path>, skill://… or bash-output://…"),
    offset: z.number().int().min(1).optional().describe("first line, 1-based"),
    limit: z.number().int().min(1).optional().describe("max lines"),
    column: z.number().int().min(0).optional().describe("to continue a long line at `offset`"),
  })
  .strict();

// Leave room for the footer so the dispatch cap (2,000 lines / 50 KiB) never cuts a page's hint off.
const PAGE_LINES = MAX_LINES - 1;
const PAGE_BYTES = MAX_BYTES - 512;

/** Format a page of a text for a model: numbered lines, caps, and a hint on how to continue. */
export function pageText(name: string, text: string, offset = 1, limit?: number, column = 0): ToolResult {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  const total = text === "" ? 0 : lines.length;
  if (total === 0) return { text: `(${name} is empty)`, details: { path: name, totalLines: 0 } };
  if (offset > total)
    throw new NbError("invalid_input", `Offset ${offset} is beyond the end of ${name} (${total} lines)`, {
      fields: [{ pointer: "/offset", message: `beyond end of file (${total} lines)` }],
    });

  const width = String(Math.min(total, offset + (limit ?? PAGE_LINES))).length;
  const out: string[] = [];
  let bytes = 0;
  let line = offset;
  const last = Math.min(total, offset - 1 + (limit ?? total));
  let partial: { line: number; next: number; length: number } | null = null;
  // When the whole text fits the byte budget, lines need no byte counting (the common, small file).
  const fits = column === 0 && Buffer.byteLength(text, "utf8") + total * (width + 2) <= PAGE_BYTES;
  for (; line <= last && out.length < PAGE_LINES; line++) {
    let body = lines[line - 1];
    if (line === offset && column > 0) body = body.slice(column);
    const prefix = `${String(line).padStart(width)}\t`;
    if (fits) {
      out.push(prefix + body);
      continue;
    }
    const size = prefix.length + Buffer.byteLength(body, "utf8") + 1;
    if (bytes + size > PAGE_BYTES) {
      if (out.length === 0) {
        // A single line longer than the cap: show a piece of it and say where the next piece starts.
        const piece = sliceToBytes(body, PAGE_BYTES - Buffer.byteLength(prefix, "utf8") - 1);
        out.push(prefix + piece);
        partial = { line, next: column + piece.length, length: lines[line - 1].length };
        line++;
      }
      break;
    }
    out.push(prefix + body);
    bytes += size;
  }
  const end = line - 1;
  let footer = "";
  if (partial) {
    footer = `\n[Line ${partial.line} is ${partial.length} characters long; showing characters ${column}-${partial.next}. Use offset=${partial.line}, column=${partial.next} to continue.]`;
  } else if (end < total) {
    footer = `\n[Showing lines ${offset}-${end} of ${total}. Use offset=${end + 1} to continue.]`;
  }
  return {
    text: out.join("\n") + footer,
    details: {
      path: name,
      startLine: offset,
      endLine: end,
      totalLines: total,
      ...(partial
        ? { nextOffset: partial.line, nextColumn: partial.next }
        : end < total
          ? { nextOffset: end + 1 }
          : {}),
    },
  };
}

function sliceToBytes(s: string, maxBytes: number): string {
  let bytes = 0;
  let i = 0;
  for (const ch of s) {
    const b = Buffer.byteLength(ch, "utf8");
    if (bytes + b > maxBytes) break;
    bytes += b;
    i += ch.length;
  }
  return s.slice(0, i);
}

async function listFolder(f: FolderToList): Promise<ToolResult> {
  const display = f.label;
  const entries = await listFolderWithin(f);
  const rows = entries
    .map((e) => ({ name: e.name, kind: e.isDirectory() ? "dir" : e.isSymbolicLink() ? "link" : "file" }))
    .sort((a, b) =>
      (a.kind === "dir") !== (b.kind === "dir") ? (a.kind === "dir" ? -1 : 1) : a.name.localeCompare(b.name),
    );
  const text = rows.length
    ? `${display}/ (${rows.length} entries)\n${rows.map((r) => (r.kind === "dir" ? `${r.name}/` : r.name)).join("\n")}`
    : `${display}/ (empty folder)`;
  return { text, details: { path: display, entries: rows } };
}

export const readTool = defineTool({
  key: "read",
  group: "files",
  description: "Read a text file with numbered lines, or list a folder.",
  input: Input,
  effect: "read",
  async execute(input, ctx) {
    if (input.path.startsWith("bash-output://")) {
      const text = await readBashOutput(ctx.workspace, input.path);
      return pageText(input.path, text, input.offset, input.limit, input.column);
    }
    if (input.path.startsWith(SKILL_SCHEME)) {
      const f = resolveSkillFile(ctx.workspace, ctx.project, input.path);
      if (f.isDirectory)
        return listFolder({ abs: f.abs, root: f.root, rootName: f.rootName, label: f.display });
      return pageText(f.display, readSkillText(f), input.offset, input.limit, input.column);
    }
    const r = authorize(ctx, input.path, "list");
    const st = statSync(r.abs, { throwIfNoEntry: false });
    if (!st) throw new NbError("not_found", `File not found: ${r.display}`);
    if (st.isDirectory())
      return listFolder({ abs: r.abs, root: r.project.realRoot, rootName: "the project", label: r.display });
    return pageText(r.display, await readText(r), input.offset, input.limit, input.column);
  },
});
