import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createTwoFilesPatch } from "diff";
import { NbError } from "../../core/errors.js";
import { looksBinary } from "../../core/text.js";
import { isInside, type ResolvedPath, realPathOf, resolveFileAddress } from "../../workspace/paths.js";
import type { ToolContext } from "../types.js";

/**
 * Resolve a path through the one authorisation path. Writes never reach a project's `.nbook/`
 * control area (judged on the real path): its databases change only through their tools, and its
 * agent profiles, skills and workflows — which grant agents their powers — only by the user.
 */
export function authorize(ctx: ToolContext, path: string, op: "read" | "write" | "list"): ResolvedPath {
  const r = resolveFileAddress(ctx.workspace, ctx.project, path, { allowRoot: op === "list" });
  if (op === "write" && isInside(realPathOf(r.abs, path), join(r.project.realRoot, ".nbook"))) {
    throw new NbError(
      "not_allowed",
      `${r.display} is in the project's control area (.nbook/): databases change only through their tools (execute_sql, execute_world, the plot tools), agent profiles, skills and workflows only by the user`,
    );
  }
  return r;
}

/** Read a text file as UTF-8, or null when it does not exist. Refuses folders, special and binary files. */
export async function readTextOrNull(r: ResolvedPath): Promise<string | null> {
  let buf: Buffer;
  try {
    // Metadata only, so the sync call cannot block on a FIFO; it saves a thread-pool round trip per call.
    const st = statSync(r.abs);
    if (st.isDirectory()) throw new NbError("invalid_input", `${r.display} is a folder, not a file`);
    // A FIFO or device would block the read or never end.
    if (!st.isFile()) throw new NbError("unsupported", `${r.display} is not a regular file`);
    buf = await readFile(r.abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  if (looksBinary(buf))
    throw new NbError("unsupported", `${r.display} is a binary file; only text files can be read or edited`);
  return buf.toString("utf8");
}

/** Read a text file that must exist. */
export async function readText(r: ResolvedPath): Promise<string> {
  const text = await readTextOrNull(r);
  if (text === null) throw new NbError("not_found", `File not found: ${r.display}`);
  return text;
}

/** A unified diff between two versions of a file, named by its display path. */
export function unifiedDiff(
  display: string,
  before: string | null,
  after: string | null,
  context = 3,
): string {
  return createTwoFilesPatch(
    before === null ? "/dev/null" : `a/${display}`,
    after === null ? "/dev/null" : `b/${display}`,
    before ?? "",
    after ?? "",
    undefined,
    undefined,
    { context },
  )
    .split("\n")
    .slice(1)
    .join("\n");
}
