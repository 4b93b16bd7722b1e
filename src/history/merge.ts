import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runGit } from "./git.js";

/** The outcome of taking one change back from one file. */
export type UndoOutcome =
  | { kind: "ok"; content: Buffer | null }
  | { kind: "conflict"; why: string; merged?: string };

function same(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

/**
 * Take a change back from a file: `current` is the file now, `after` what the change left,
 * `before` what it found (null: absent). Edits made since to other lines survive (a three-way
 * merge, `git merge-file`, of current and before on the base after); edits to the same lines, or a
 * file deleted or re-created since, are a conflict.
 */
export async function undoInFile(
  current: Buffer | null,
  after: Buffer | null,
  before: Buffer | null,
  labels: { current: string; after: string; before: string },
): Promise<UndoOutcome> {
  if (same(current, after)) return { kind: "ok", content: before };
  if (same(current, before)) return { kind: "ok", content: current };
  if (current === null) return { kind: "conflict", why: "deleted since the change" };
  if (after === null) return { kind: "conflict", why: "created again since the change deleted it" };
  if (before === null) return { kind: "conflict", why: "edited since the change created it" };
  const dir = await mkdtemp(join(tmpdir(), "nbook-merge-"));
  try {
    const [c, a, b] = ["current", "after", "before"].map((n) => join(dir, n));
    await Promise.all([writeFile(c, current), writeFile(a, after), writeFile(b, before)]);
    const out = await runGit(
      ["merge-file", "-p", "-L", labels.current, "-L", labels.after, "-L", labels.before, c, a, b],
      { okCodes: Array.from({ length: 127 }, (_, i) => i + 1) },
    );
    if (out.code === 0) return { kind: "ok", content: out.stdout };
    return { kind: "conflict", why: "edited since in the same lines", merged: out.stdout.toString("utf8") };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
