import { createHash } from "node:crypto";
import { createTwoFilesPatch } from "diff";
import { z } from "zod";
import { NbError, toErrorInfo } from "../../core/errors.js";
import { looksBinary } from "../../core/text.js";
import type { WriteScope } from "../../workspace/anchored-fs.js";
import {
  controlAreaOf,
  isInside,
  type ResolvedPath,
  realPathOf,
  resolveFileAddress,
} from "../../workspace/paths.js";
import { readFileSafe } from "../../workspace/safe-read.js";
import { planRootOf } from "../dispatch.js";
import type { ChangeReport } from "../pipeline/record.js";
import type { BasisSpec, RunGrant, ToolContext, ToolPreview, WriteGrant } from "../types.js";

/** Addresses that `read` resolves itself (`skill://`, `bash-output://`). */
const READ_ONLY_ADDRESS = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Resolve a path through the one authorisation path. Writes never reach a project's `.nbook/`
 * control area (judged on the real path): its databases change only through their tools, and its
 * agent profiles, skills and workflows — which grant agents their powers — only by the user.
 */
export function authorize(ctx: ToolContext, path: string, op: "read" | "write" | "list"): ResolvedPath {
  // `skill://…` and `bash-output://…` name things `read` shows; taken as a path they would create a `skill:` folder.
  if (op === "write" && READ_ONLY_ADDRESS.test(path)) {
    throw new NbError(
      "invalid_input",
      `${path.slice(0, 80)} is a read-only address; write to a path of the project instead`,
    );
  }
  const r = resolveFileAddress(ctx.workspace, ctx.project, path, { allowRoot: op === "list" });
  if (op === "write" && isInside(realPathOf(r.abs, path), controlAreaOf(r.project))) {
    throw new NbError(
      "not_allowed",
      `${r.display} is in the project's control area (.nbook/): databases change only through their tools (execute_sql, execute_world, the plot tools), agent profiles, skills and workflows only by the user`,
    );
  }
  return r;
}

/** The largest file the file tools read (a sparse file of gigabytes costs a command nothing). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Read a text file as UTF-8, or null when it does not exist. Refuses folders, special and binary
 * files. Through the safe read: the checks the authorisation made on the path are made again on the
 * file actually opened (still inside the project, one name only), so a file swapped in between is
 * not read.
 */
export async function readTextOrNull(r: ResolvedPath): Promise<string | null> {
  const buf = await readFileSafe(r.abs, {
    label: r.display,
    root: r.project.realRoot,
    maxBytes: MAX_FILE_BYTES,
  });
  if (buf === null) return null;
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

/** What a file write's approval is pinned to: each target's sha256 when the preview was made (null: absent). */
const FilesBasisSchema = z
  .object({ files: z.array(z.object({ path: z.string(), sha256: z.string().nullable() }).strict()) })
  .strict();
export type FilesBasis = z.infer<typeof FilesBasisSchema>;

/** The basis of a file tool's approvals (`tool`: its key, for the mismatch message). */
export function filesBasisSpec(tool: string): BasisSpec<FilesBasis> {
  return {
    schema: FilesBasisSchema,
    mismatch: `The approval does not match this ${tool} call; nothing was written`,
  };
}

/** The sha256 of a file's text, or null for a file that does not exist. */
export function contentHash(text: string | null): string | null {
  return text === null ? null : createHash("sha256").update(text, "utf8").digest("hex");
}

/** The basis of a plan made from these contents (`before`: null for a file that does not exist). */
export function filesBasis(files: { display: string; before: string | null }[]): FilesBasis {
  return { files: files.map((f) => ({ path: f.display, sha256: contentHash(f.before) })) };
}

/** A file write worked out against the files as they are now, before anything is written. */
export interface FilePlan {
  basis: FilesBasis;
  /** False when the call would leave every file as it is. */
  changed: boolean;
  /** The change as the user approves it: a diff, with the basis. */
  preview(): ToolPreview;
}

/** A plan's preview, marked `unchanged` when it would change nothing (the gate then does not ask). */
export function filePreview(plan: FilePlan): ToolPreview {
  return plan.changed ? plan.preview() : { ...plan.preview(), unchanged: true };
}

/**
 * The plan a granted file write runs. One the user approved against a preview is worked out again
 * and must find its targets as that preview saw them; otherwise it fails with `conflict`, carrying
 * the change as it would apply now, and writes nothing. One granted no writes (its preview showed
 * no change) is worked out again too and may still not write. Any other reuses the prepared plan.
 */
export async function planToRun<P extends FilePlan>(
  grant: RunGrant<FilesBasis>,
  ctx: ToolContext,
  tool: string,
  prepared: () => Promise<P>,
  fresh: () => Promise<P>,
): Promise<P> {
  const approved = grant.approval?.basis ?? null;
  if (!grant.approval && grant.writes !== "none") return prepared();
  let planned: P;
  try {
    planned = await fresh();
  } catch (e) {
    const changed = approved ? await changedSince(ctx, approved) : [];
    if (!changed.length) throw e;
    throw conflict(tool, changed, `It no longer applies: ${toErrorInfo(e).message}`);
  }
  // A target changed since the preview: refused, unless the call would now write nothing at all.
  if (approved && planned.changed) {
    const changed = differing(approved, planned.basis);
    if (changed.length) throw conflict(tool, changed, planned.preview());
  }
  if (planned.changed && grant.writes === "none") {
    throw new NbError(
      "conflict",
      `${planned.basis.files.map((f) => f.path).join(", ")} changed while the ${tool} call ran; nothing was written. Call it again.`,
    );
  }
  return planned;
}

/**
 * Where a granted call's writes may land, checked on the opened folder when each is made: anywhere
 * in the project; for a plan-mode call running under the `.agent/plan/` exemption, only inside the
 * project's real `.agent/plan/` (the gate looked at the folder earlier); nowhere for one granted none.
 */
export function writeScope(writes: WriteGrant, ctx: Pick<ToolContext, "mode" | "project">): WriteScope {
  if (writes === "any") return {};
  if (writes === "none" || !ctx.project)
    throw new NbError("not_allowed", `The session is in ${ctx.mode} mode (read-only); nothing was written`);
  return { within: planRootOf(ctx.project) };
}

/**
 * The record of a file write: each target's content hash before — taken from the plan's basis, which
 * hashed it already (a large chapter is not hashed twice) — and after.
 */
export function filesChange(
  basis: FilesBasis,
  files: { display: string; after: string | null }[],
  summary: string,
): ChangeReport {
  const before = new Map(basis.files.map((f) => [f.path, f.sha256]));
  return {
    targets: files.map((f) => f.display),
    files: files.map((f) => ({
      path: f.display,
      before: before.get(f.display) ?? null,
      after: contentHash(f.after),
    })),
    summary,
  };
}

/** Paths whose hash differs between two bases (or that only one of them has). */
function differing(a: FilesBasis, b: FilesBasis): string[] {
  const before = new Map(a.files.map((f) => [f.path, f.sha256]));
  const after = new Map(b.files.map((f) => [f.path, f.sha256]));
  return [...new Set([...before.keys(), ...after.keys()])].filter(
    (p) => !before.has(p) || !after.has(p) || before.get(p) !== after.get(p),
  );
}

/** The files of a basis whose content is no longer what it records (an unreadable one counts as changed). */
async function changedSince(ctx: ToolContext, basis: FilesBasis): Promise<string[]> {
  const out: string[] = [];
  for (const f of basis.files) {
    let now: string | null | undefined;
    try {
      now = contentHash(await readTextOrNull(authorize(ctx, f.path, "write")));
    } catch {
      now = undefined;
    }
    if (now !== f.sha256) out.push(f.path);
  }
  return out;
}

function conflict(tool: string, changed: string[], now: ToolPreview | string): NbError {
  const fresh = typeof now === "string" ? now : `The ${tool} call as it would apply now:\n${now.text}`;
  return new NbError(
    "conflict",
    `${changed.join(", ")} changed after the preview the user approved, so nothing was written. ${fresh}\nCall ${tool} again to ask the user to approve the change as it stands.`,
    { details: { changed, ...(typeof now === "string" ? {} : { preview: now }) } },
  );
}
