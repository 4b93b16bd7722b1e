import { NbError } from "../core/errors.js";
import type { PlotDb } from "./db.js";
import { type EntityKind, exists } from "./store.js";

/** A parsed reference target: a plot object by id, or a project-relative content path. */
export type RefTarget =
  | { kind: "promise" | "decision" | "thread" | "scene"; id: number }
  | { kind: "content"; path: string };

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i;

/**
 * Normalise a project-relative content path, or return null when it is not one (absolute, a
 * drive letter, a `..` segment, a backslash, a NUL byte, a URL). One rule for every ref.
 */
export function normalizeContentPath(raw: string): string | null {
  const p = raw.trim();
  if (!p || p.includes("\0") || p.includes("\\") || SCHEME.test(p) || /^[a-z]:/i.test(p)) return null;
  if (p.startsWith("/") || p.startsWith("~") || p.startsWith("#")) return null;
  const segs = p.split("/").filter((s, i, all) => !(s === "." || (s === "" && i === all.length - 1)));
  if (segs.length === 0 || segs.some((s) => s === ".." || s === "")) return null;
  return segs.join("/");
}

/**
 * Parse and check one reference: `<kind>://<id>` (threads also by name), or a content path. Only
 * the kinds listed in `allowed` are accepted; plot targets must exist.
 */
export function resolveRef(
  db: PlotDb,
  raw: string,
  allowed: readonly RefTarget["kind"][],
  pointer: string,
): RefTarget {
  const m = SCHEME.exec(raw.trim());
  const bad = (message: string) =>
    new NbError("invalid_input", `${pointer}: ${message}`, { fields: [{ pointer, message }] });
  if (!m) {
    if (!allowed.includes("content")) throw bad(`"${raw}" is not a reference this field accepts`);
    const path = normalizeContentPath(raw);
    if (!path)
      throw bad(`"${raw}" is not a project-relative path (no absolute paths, "..", backslashes or URLs)`);
    return { kind: "content", path };
  }
  const scheme = m[1].toLowerCase() as RefTarget["kind"];
  const rest = m[2];
  if (scheme === "content" || !allowed.includes(scheme)) {
    throw bad(
      `unsupported reference "${raw}": use ${allowed.map((k) => (k === "content" ? "a path" : k === "thread" ? "thread://<id|name>" : `${k}://<id>`)).join(", ")}`,
    );
  }
  let id: number;
  if (/^[1-9]\d{0,15}$/.test(rest)) id = Number(rest);
  else if (scheme === "thread" && /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(rest)) {
    const row = db.prepare("SELECT id FROM story_thread WHERE name = ?").get(rest) as
      | { id: number }
      | undefined;
    if (!row)
      throw new NbError("not_found", `${pointer}: no thread named "${rest}"`, {
        fields: [{ pointer, message: "no such thread" }],
      });
    id = row.id;
  } else throw bad(`"${raw}" needs a positive integer id`);
  if (!exists(db, scheme as EntityKind, id)) {
    throw new NbError("not_found", `${pointer}: ${raw} does not exist`, {
      fields: [{ pointer, message: `no ${scheme} ${id}` }],
    });
  }
  return { kind: scheme, id };
}

/** The canonical string form of a target (`thread://3`, `lorebook/x.md`). */
export function formatRef(t: RefTarget): string {
  return t.kind === "content" ? t.path : `${t.kind}://${t.id}`;
}
