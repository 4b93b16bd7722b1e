import { NbError } from "../../../core/errors.js";

/** One change chunk of an Update: optional `@@` anchors, the old and new lines, and an end-of-file tie. */
export interface Chunk {
  anchors: string[];
  oldLines: string[];
  newLines: string[];
  eof: boolean;
}

/** One file operation of a Codex-style patch. */
export type PatchOp =
  | { kind: "add"; path: string; content: string }
  | { kind: "delete"; path: string }
  | { kind: "update"; path: string; moveTo?: string; chunks: Chunk[] };

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const EOF_MARK = "*** End of File";

function bad(message: string, line?: number): NbError {
  return new NbError(
    "invalid_input",
    line ? `Invalid patch, line ${line}: ${message}` : `Invalid patch: ${message}`,
    {
      fields: [{ pointer: "/patch", message }],
    },
  );
}

function isOpHeader(line: string): boolean {
  const t = line.trim();
  return t.startsWith(ADD) || t.startsWith(DELETE) || t.startsWith(UPDATE);
}

function pathAfter(line: string, marker: string, n: number): string {
  const p = line.trim().slice(marker.length).trim();
  if (!p) throw bad(`missing path after "${marker.trim()}"`, n);
  return p;
}

/** Parse a whole patch; any syntax error is reported before anything is applied. */
export function parsePatch(text: string): PatchOp[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  while (lines.length && lines[lines.length - 1].trim() === "") lines.pop();
  let first = 0;
  while (first < lines.length && lines[first].trim() === "") first++;
  if (lines[first]?.trim() !== BEGIN) throw bad(`the first line must be "${BEGIN}"`, first + 1);
  if (lines.length - 1 <= first || lines[lines.length - 1].trim() !== END)
    throw bad(`the last line must be "${END}"`);

  const ops: PatchOp[] = [];
  let i = first + 1;
  const last = lines.length - 1;
  while (i < last) {
    const line = lines[i];
    const t = line.trim();
    const n = i + 1;
    if (t === "") {
      i++;
      continue;
    }
    if (t.startsWith(ADD)) {
      const path = pathAfter(line, ADD, n);
      const body: string[] = [];
      i++;
      while (i < last && !isOpHeader(lines[i])) {
        if (!lines[i].startsWith("+")) throw bad(`every line of an added file must start with "+"`, i + 1);
        body.push(lines[i].slice(1));
        i++;
      }
      ops.push({ kind: "add", path, content: body.length ? `${body.join("\n")}\n` : "" });
    } else if (t.startsWith(DELETE)) {
      ops.push({ kind: "delete", path: pathAfter(line, DELETE, n) });
      i++;
    } else if (t.startsWith(UPDATE)) {
      const path = pathAfter(line, UPDATE, n);
      i++;
      let moveTo: string | undefined;
      if (i < last && lines[i].trim().startsWith(MOVE)) {
        moveTo = pathAfter(lines[i], MOVE, i + 1);
        i++;
      }
      const start = i;
      const chunks: Chunk[] = [];
      i = parseChunks(lines, i, last, chunks);
      if (chunks.length === 0 && !moveTo) throw bad(`"${UPDATE}${path}" has no change chunk`, start);
      ops.push({ kind: "update", path, moveTo, chunks });
    } else {
      throw bad(`unknown operation "${t.slice(0, 60)}" (expected Add File, Delete File or Update File)`, n);
    }
  }
  if (ops.length === 0) throw bad("the patch contains no file operation");
  return ops;
}

function parseChunks(lines: string[], i: number, last: number, out: Chunk[]): number {
  let cur: Chunk | null = null;
  const hasBody = (c: Chunk) => c.oldLines.length > 0 || c.newLines.length > 0;
  const close = (n: number) => {
    if (cur && !hasBody(cur)) throw bad("empty change chunk", n);
    if (cur) out.push(cur);
    cur = null;
  };
  for (; i < last && !isOpHeader(lines[i]); i++) {
    const line = lines[i];
    const t = line.trim();
    if (t === "@@" || t.startsWith("@@ ")) {
      const anchor = t.slice(2).trim();
      if (cur && !hasBody(cur)) {
        if (anchor) cur.anchors.push(anchor);
        continue;
      }
      close(i + 1);
      cur = { anchors: anchor ? [anchor] : [], oldLines: [], newLines: [], eof: false };
      continue;
    }
    if (t === EOF_MARK) {
      if (!cur) throw bad(`"${EOF_MARK}" outside a change chunk`, i + 1);
      cur.eof = true;
      close(i + 1);
      continue;
    }
    if (!cur) {
      if (out.length > 0)
        throw bad(`expected "@@" to start a change chunk, found "${t.slice(0, 60)}"`, i + 1);
      cur = { anchors: [], oldLines: [], newLines: [], eof: false };
    }
    const mark = line[0];
    const body = line.slice(1);
    if (line === "") {
      cur.oldLines.push("");
      cur.newLines.push("");
    } else if (mark === " ") {
      cur.oldLines.push(body);
      cur.newLines.push(body);
    } else if (mark === "-") cur.oldLines.push(body);
    else if (mark === "+") cur.newLines.push(body);
    else throw bad(`a chunk line must start with " ", "-" or "+": "${line.slice(0, 60)}"`, i + 1);
  }
  close(i);
  return i;
}

/** Every path a patch touches (Move targets included), or null when it does not parse. */
export function patchTargets(text: string): string[] | null {
  try {
    return parsePatch(text).flatMap((op) =>
      op.kind === "update" && op.moveTo ? [op.path, op.moveTo] : [op.path],
    );
  } catch {
    return null;
  }
}
