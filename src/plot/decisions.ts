import { NbError } from "../core/errors.js";
import { parseOrThrow } from "../core/validate.js";
import type { PlotContext } from "./context.js";
import type { PlotDb } from "./db.js";
import { SaveDecisionInput, type SaveDecisionInput as SaveDecisionInputT } from "./inputs.js";
import { formatRef, normalizeContentPath, resolveRef } from "./refs.js";
import type { AnchorKind } from "./schemas.js";
import { assertNameFree, insertRow, mustGet, parseObjectArray, updateColumns } from "./store.js";

export interface DecisionRow {
  id: number;
  name: string;
  title: string;
  status: "open" | "decided" | "superseded" | "voided";
  question: string;
  options: string;
  conclusion: string | null;
  reason: string | null;
  risk: string | null;
  rejected_alternatives: string;
  void_reason: string | null;
  superseded_by_id: number | null;
  deadline_chapter_id: number | null;
  anchor_kind: AnchorKind;
  anchor_act_id: number | null;
  anchor_chapter_id: number | null;
  anchor_thread_id: number | null;
  anchor_scene_id: number | null;
  anchor_promise_id: number | null;
  anchor_path: string | null;
  note: string | null;
  created_at: string;
  updated_at: string;
}

export interface DecisionOption {
  option: string;
  note: string | null;
}
export interface RejectedAlternative {
  option: string;
  whyRejected: string | null;
}

const ANCHOR_COLUMN: Record<Exclude<AnchorKind, "story" | "content">, string> = {
  act: "anchor_act_id",
  chapter: "anchor_chapter_id",
  thread: "anchor_thread_id",
  scene: "anchor_scene_id",
  promise: "anchor_promise_id",
};

/** The anchor of a decision; one whose target was deleted reads as `story`. */
export function decisionAnchor(r: DecisionRow): { kind: AnchorKind; id: number | null; path: string | null } {
  if (r.anchor_kind === "content")
    return r.anchor_path
      ? { kind: "content", id: null, path: r.anchor_path }
      : { kind: "story", id: null, path: null };
  if (r.anchor_kind === "story") return { kind: "story", id: null, path: null };
  const id = (r as unknown as Record<string, number | null>)[ANCHOR_COLUMN[r.anchor_kind]];
  return id === null ? { kind: "story", id: null, path: null } : { kind: r.anchor_kind, id, path: null };
}

/** serves/dependsOn lists of many decisions in one query. */
export function loadDecisionLinks(
  db: PlotDb,
  ids: number[],
): Map<number, { serves: string[]; dependsOn: string[] }> {
  const out = new Map(ids.map((id) => [id, { serves: [] as string[], dependsOn: [] as string[] }]));
  if (ids.length === 0) return out;
  const rows = db
    .prepare(
      `SELECT * FROM story_decision_link WHERE decision_id IN (SELECT value FROM json_each(?)) ORDER BY decision_id, relation, sort_order`,
    )
    .all(JSON.stringify(ids)) as {
    decision_id: number;
    relation: "serves" | "depends_on";
    target_kind: "promise" | "decision" | "thread" | "scene" | "content";
    target_promise_id: number | null;
    target_decision_id: number | null;
    target_thread_id: number | null;
    target_scene_id: number | null;
    target_path: string | null;
  }[];
  for (const r of rows) {
    const target =
      r.target_kind === "content"
        ? r.target_path!
        : formatRef({
            kind: r.target_kind,
            id: (r.target_promise_id ?? r.target_decision_id ?? r.target_thread_id ?? r.target_scene_id)!,
          });
    const entry = out.get(r.decision_id)!;
    (r.relation === "serves" ? entry.serves : entry.dependsOn).push(target);
  }
  return out;
}

/** Decision row → DTO. */
export function decisionDto(r: DecisionRow, links: { serves: string[]; dependsOn: string[] }) {
  return {
    id: r.id,
    name: r.name,
    title: r.title,
    status: r.status,
    question: r.question,
    options: parseObjectArray<DecisionOption>(r.options),
    conclusion: r.conclusion,
    reason: r.reason,
    risk: r.risk,
    rejectedAlternatives: parseObjectArray<RejectedAlternative>(r.rejected_alternatives),
    voidReason: r.void_reason,
    supersededById: r.superseded_by_id,
    deadlineChapterId: r.deadline_chapter_id,
    anchor: decisionAnchor(r),
    serves: links.serves,
    dependsOn: links.dependsOn,
    note: r.note,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
export type DecisionDto = ReturnType<typeof decisionDto>;

/** One decision as a DTO. */
export function getDecisionDto(pc: PlotContext, id: number): DecisionDto {
  const row = mustGet<DecisionRow>(pc.db, "decision", id, "/decisionId");
  return decisionDto(row, loadDecisionLinks(pc.db, [id]).get(id)!);
}

function bad(pointer: string, message: string): NbError {
  return new NbError("invalid_input", `${pointer}: ${message}`, { fields: [{ pointer, message }] });
}

function anchorColumns(
  db: PlotDb,
  anchor: NonNullable<SaveDecisionInputT["anchor"]>,
): Record<string, unknown> {
  const cols: Record<string, unknown> = { anchor_kind: anchor.kind, anchor_path: null };
  for (const c of Object.values(ANCHOR_COLUMN)) cols[c] = null;
  if (anchor.kind === "story") {
    if (anchor.id !== undefined || anchor.path !== undefined)
      throw bad("/anchor", "a story anchor takes neither id nor path");
  } else if (anchor.kind === "content") {
    if (anchor.id !== undefined) throw bad("/anchor/id", "a content anchor takes a path, not an id");
    const path = anchor.path === undefined ? null : normalizeContentPath(anchor.path);
    if (!path)
      throw bad(
        "/anchor/path",
        'a content anchor needs a project-relative path (no absolute paths, "..", backslashes or URLs)',
      );
    cols.anchor_path = path;
  } else {
    if (anchor.path !== undefined)
      throw bad("/anchor/path", `a ${anchor.kind} anchor takes an id, not a path`);
    if (anchor.id === undefined)
      throw bad("/anchor/id", `a ${anchor.kind} anchor needs the ${anchor.kind} id`);
    mustGet(db, anchor.kind, anchor.id, "/anchor/id");
    cols[ANCHOR_COLUMN[anchor.kind]] = anchor.id;
  }
  return cols;
}

function writeLinks(
  db: PlotDb,
  id: number,
  relation: "serves" | "depends_on",
  list: string[],
  field: string,
): void {
  const targets = list.map((raw, i) =>
    resolveRef(db, raw, ["promise", "decision", "thread", "scene", "content"], `/${field}/${i}`),
  );
  const keys = targets.map(formatRef);
  const dup = keys.findIndex((k, i) => keys.indexOf(k) !== i);
  if (dup >= 0) throw bad(`/${field}/${dup}`, "duplicate entry");
  if (relation === "depends_on" && targets.some((t) => t.kind === "decision" && t.id === id)) {
    throw bad(`/${field}`, "a decision cannot depend on itself");
  }
  db.prepare("DELETE FROM story_decision_link WHERE decision_id = ? AND relation = ?").run(id, relation);
  const ins = db.prepare(
    `INSERT INTO story_decision_link (decision_id, relation, sort_order, target_kind, target_promise_id, target_decision_id, target_thread_id, target_scene_id, target_path)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  targets.forEach((t, i) => {
    const idOf = (k: string) => (t.kind === k ? (t as { id: number }).id : null);
    ins.run(
      id,
      relation,
      i,
      t.kind,
      idOf("promise"),
      idOf("decision"),
      idOf("thread"),
      idOf("scene"),
      t.kind === "content" ? t.path : null,
    );
  });
}

function cleanOptions(options: NonNullable<SaveDecisionInputT["options"]>): DecisionOption[] {
  const seen = new Map<string, number>();
  return options.map((o, i) => {
    const text = o.option.trim();
    if (seen.has(text)) throw bad(`/options/${i}/option`, `duplicate of option ${seen.get(text)}`);
    seen.set(text, i);
    return { option: text, note: o.note ?? null };
  });
}

/**
 * Create or update a decision, or move it through its lifecycle: sign_off (needs conclusion,
 * reason and risk), void (needs a reason in the same call), supersede (by a decided decision, no
 * cycles), reopen (clears the outcome fields).
 */
export function saveDecision(pc: PlotContext, raw: unknown): DecisionDto {
  const input = parseOrThrow(SaveDecisionInput, raw);
  const { db } = pc;
  return db.transaction(() => {
    if (input.deadlineChapterId != null)
      mustGet(db, "chapter", input.deadlineChapterId, "/deadlineChapterId");
    const options = input.options ? cleanOptions(input.options) : undefined;
    const columns: Record<string, unknown> = {
      name: input.name,
      title: input.title,
      question: input.question,
      options: options ? JSON.stringify(options) : undefined,
      deadline_chapter_id: input.deadlineChapterId,
      note: input.note,
      ...(input.anchor ? anchorColumns(db, input.anchor) : {}),
    };
    let id: number;
    if (input.action === "create") {
      assertNameFree(db, "decision", input.name!);
      id = insertRow(db, "story_decision", columns);
    } else {
      id = input.decisionId!;
      const row = mustGet<DecisionRow>(db, "decision", id, "/decisionId");
      if (input.name) assertNameFree(db, "decision", input.name, id);
      if (input.action === "update") {
        const outcome = (["conclusion", "reason", "risk", "rejectedAlternatives"] as const).filter(
          (k) => input[k] !== undefined,
        );
        if (outcome.length && row.status !== "decided") {
          throw new NbError(
            "conflict",
            `Decision ${id} is ${row.status}: ${outcome.join(", ")} can only change on a decided decision (use sign_off)`,
            {
              fields: outcome.map((k) => ({ pointer: `/${k}`, message: "decision is not decided" })),
            },
          );
        }
        Object.assign(columns, {
          conclusion: input.conclusion,
          reason: input.reason,
          risk: input.risk,
          rejected_alternatives: input.rejectedAlternatives
            ? JSON.stringify(
                input.rejectedAlternatives.map((r) => ({
                  option: r.option.trim(),
                  whyRejected: r.whyRejected ?? null,
                })),
              )
            : undefined,
        });
      } else if (input.action === "sign_off") {
        Object.assign(columns, signOff(row, input));
      } else if (input.action === "void") {
        if (row.status === "voided") throw new NbError("conflict", `Decision ${id} is already voided`);
        if (row.status === "superseded")
          throw new NbError("conflict", `Decision ${id} is superseded; reopen it first`);
        Object.assign(columns, { status: "voided", void_reason: input.voidReason });
      } else if (input.action === "supersede") {
        Object.assign(columns, supersede(db, row, input.supersededById!));
      } else if (input.action === "reopen") {
        if (row.status === "open") throw new NbError("conflict", `Decision ${id} is already open`);
        Object.assign(columns, {
          status: "open",
          conclusion: null,
          reason: null,
          risk: null,
          void_reason: null,
          superseded_by_id: null,
        });
      }
      updateColumns(db, "story_decision", id, columns);
    }
    if (input.serves) writeLinks(db, id, "serves", input.serves, "serves");
    if (input.dependsOn) writeLinks(db, id, "depends_on", input.dependsOn, "dependsOn");
    return getDecisionDto(pc, id);
  })();
}

function signOff(row: DecisionRow, input: SaveDecisionInputT): Record<string, unknown> {
  if (row.status !== "open")
    throw new NbError(
      "conflict",
      `Decision ${row.id} is ${row.status}; only an open decision can be signed off`,
    );
  if (input.chosenOption !== undefined && input.rejectedAlternatives !== undefined) {
    throw bad("/rejectedAlternatives", "give chosenOption or rejectedAlternatives, not both");
  }
  const options = parseObjectArray<DecisionOption>(row.options);
  let rejected: RejectedAlternative[];
  if (input.rejectedAlternatives) {
    rejected = input.rejectedAlternatives.map((r) => ({
      option: r.option.trim(),
      whyRejected: r.whyRejected ?? null,
    }));
  } else {
    const chosen = input.chosenOption?.trim();
    if (chosen !== undefined && !options.some((o) => o.option === chosen)) {
      throw bad(
        "/chosenOption",
        `not one of the options: ${options.map((o) => o.option).join(" / ") || "(none)"}`,
      );
    }
    // Keep reasons written before (e.g. before a reopen) for options rejected again.
    const earlier = new Map(
      parseObjectArray<RejectedAlternative>(row.rejected_alternatives).map((r) => [r.option, r.whyRejected]),
    );
    rejected = options
      .filter((o) => o.option !== chosen)
      .map((o) => ({ option: o.option, whyRejected: earlier.get(o.option) ?? null }));
  }
  return {
    status: "decided",
    conclusion: input.conclusion,
    reason: input.reason,
    risk: input.risk,
    rejected_alternatives: JSON.stringify(rejected),
  };
}

function supersede(db: PlotDb, row: DecisionRow, byId: number): Record<string, unknown> {
  if (row.status !== "decided" && row.status !== "open") {
    throw new NbError(
      "conflict",
      `Decision ${row.id} is ${row.status}; only an open or decided decision can be superseded`,
    );
  }
  if (byId === row.id) throw bad("/supersededById", "a decision cannot supersede itself");
  // The replacement must be decided, and a decided decision supersedes nothing: no cycles can form.
  const by = mustGet<DecisionRow>(db, "decision", byId, "/supersededById");
  if (by.status !== "decided")
    throw bad("/supersededById", `decision ${byId} is ${by.status}; the replacement must be decided first`);
  return { status: "superseded", superseded_by_id: byId };
}
