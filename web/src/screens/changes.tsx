// The Changes screen: the project's recorded changes (docs/history.md) as an inbox, grouped by who
// made them (a session) and then by turn (titled with the message that began it), each with its
// diff, a Revert (a conflict shows both versions, nothing changes), a Revert turn, and a Keep that
// marks it reviewed. Kept ids live in this browser's localStorage, one list per project:
// reviewing is a reader's note, not part of the project's history.
import { useEffect, useState } from "preact/hooks";
import { ApiError, api, type Change, type ChangeShown, type ChangeTurn, type RevertConflict } from "../api";
import { PreviewText } from "../diff-view";
import { useI18n } from "../i18n";
import { routeHash } from "../route";
import { subscribe } from "../sse";
import { useAsync } from "../use-async";
import { useWho } from "../who";

/** How many changes the inbox lists (newest first). */
const LIST_LIMIT = 500;

const keptKey = (project: string) => `nbook.changes.kept.${project}`;

function readKept(project: string): Set<string> {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(keptKey(project)) ?? "[]");
    return new Set(Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  } catch {
    return new Set();
  }
}

/** The ids marked reviewed in this browser, and a toggle that stores them. */
function useKept(project: string): [Set<string>, (id: string, kept: boolean) => void] {
  const [kept, setKept] = useState(() => readKept(project));
  useEffect(() => setKept(readKept(project)), [project]);
  const toggle = (id: string, on: boolean) => {
    const next = new Set(readKept(project));
    if (on) next.add(id);
    else next.delete(id);
    localStorage.setItem(keptKey(project), JSON.stringify([...next]));
    setKept(next);
  };
  return [kept, toggle];
}

/** Consecutive changes of one turn (null: made outside any session's turn). */
interface TurnGroup {
  turn: string | null;
  changes: Change[];
}

/** Consecutive changes by the same hand: one agent session (by turn), you, outside edits… */
interface ChangeGroup {
  key: string;
  actor: Change["actor"];
  session: string | null;
  profile: string | null;
  turns: TurnGroup[];
}

function groupChanges(changes: readonly Change[]): ChangeGroup[] {
  const groups: ChangeGroup[] = [];
  for (const c of changes) {
    const key = `${c.actor}\u0000${c.session ?? ""}\u0000${c.profile ?? ""}`;
    let last = groups.at(-1);
    if (!last || last.key !== key) {
      last = { key, actor: c.actor, session: c.session, profile: c.profile, turns: [] };
      groups.push(last);
    }
    const turn = last.turns.at(-1);
    if (turn && turn.turn === c.turn) turn.changes.push(c);
    else last.turns.push({ turn: c.turn, changes: [c] });
  }
  return groups;
}

const time = (iso: string, lang: string) => new Date(iso).toLocaleString(lang === "zh" ? "zh-CN" : "en-GB");
const json = (v: unknown) => (v === undefined ? "" : JSON.stringify(v));

function RowDiffs({ rows }: { rows: ChangeShown["rows"] }) {
  const { t } = useI18n();
  return (
    <>
      {rows.plot.length > 0 && (
        <>
          <h4>{t("changes.plotRows")}</h4>
          <ul class="row-diffs" data-testid="plot-rows">
            {rows.plot.map((r) => (
              <li key={`${r.table}:${r.key.join("/")}`}>
                <strong>
                  {r.op} {r.table}
                </strong>{" "}
                {r.name}
                <ul>
                  {r.fields.map((f) => (
                    <li key={f.field}>
                      <code>{f.field}</code>: <span class="diff-del">{json(f.before)}</span> →{" "}
                      <span class="diff-add">{json(f.after)}</span>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </>
      )}
      {rows.world.slices.length > 0 && (
        <>
          <h4>{t("changes.worldSlices")}</h4>
          <ul class="row-diffs" data-testid="world-slices">
            {rows.world.slices.map((s) => (
              <li key={s.sliceId}>
                <strong>
                  {s.slice?.op ?? "update"} {s.sliceId}
                </strong>
                <ul>
                  {s.patches.map((p, i) => {
                    const v = p.after ?? p.before;
                    return (
                      <li key={i}>
                        {p.op} <code>{v?.subjectId}</code> <code>{v?.path}</code> {v?.op}{" "}
                        {p.before && <span class="diff-del">{json(p.before.value)}</span>}
                        {p.before && p.after && " → "}
                        {p.after && <span class="diff-add">{json(p.after.value)}</span>}
                      </li>
                    );
                  })}
                </ul>
              </li>
            ))}
          </ul>
        </>
      )}
      {rows.world.subjects.length > 0 && (
        <>
          <h4>{t("changes.worldSubjects")}</h4>
          <ul class="row-diffs">
            {rows.world.subjects.map((s, i) => (
              <li key={i}>
                {s.op} <span class="diff-del">{json(s.before)}</span> →{" "}
                <span class="diff-add">{json(s.after)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

/** A refused revert: each file as it is now and as the change found it (and the merge, if any). */
function RevertConflicts({ conflicts }: { conflicts: RevertConflict[] }) {
  const { t } = useI18n();
  return (
    <div class="card conflict" role="alert" data-testid="revert-conflict">
      <p>{t("changes.conflict")}</p>
      {conflicts.map((k) => (
        <div key={`${k.change}:${k.path}`}>
          <h4>
            <code>{k.path}</code> <span class="muted small">{k.why}</span>
          </h4>
          <div class="both">
            <div>
              <h5>{t("changes.now")}</h5>
              <pre class="preview" data-testid="conflict-current">
                {k.current ?? t("changes.absent")}
              </pre>
            </div>
            <div>
              <h5>{t("changes.before")}</h5>
              <pre class="preview" data-testid="conflict-before">
                {k.before ?? t("changes.absent")}
              </pre>
            </div>
          </div>
          {k.merged !== undefined && (
            <>
              <h5>{t("changes.merged")}</h5>
              <pre class="preview">{k.merged}</pre>
            </>
          )}
        </div>
      ))}
    </div>
  );
}

function ChangeDetail(props: {
  project: string;
  id: string;
  kept: boolean;
  onKeep: (kept: boolean) => void;
  /** The history moved: a revert, or outside edits recorded before a refused one. */
  onRecorded: () => void;
}) {
  const { t, lang } = useI18n();
  const who = useWho();
  const shown = useAsync(() => api.change(props.project, props.id), [props.project, props.id]);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [conflicts, setConflicts] = useState<RevertConflict[] | null>(null);
  const s = shown.data;
  if (!s) return <p class="muted">{shown.error?.message ?? t("common.loading")}</p>;
  const c = s.change;
  // One change, or every change of its turn: either is all or nothing.
  const revert = async (whole: boolean) => {
    setBusy(true);
    setError(null);
    setConflicts(null);
    setDone(null);
    try {
      const r =
        whole && c.turn !== null
          ? await api.revertTurn(props.project, c.turn)
          : await api.revert(props.project, [c.id]);
      setDone(r.change ? t("changes.reverted", { id: r.change.id }) : t("changes.nothingReverted"));
    } catch (e) {
      const details = (e as ApiError).body as { error?: { details?: { conflicts?: RevertConflict[] } } };
      if (e instanceof ApiError && e.code === "conflict" && details?.error?.details?.conflicts)
        setConflicts(details.error.details.conflicts);
      else setError((e as Error).message);
    } finally {
      setBusy(false);
      props.onRecorded();
    }
  };
  const empty =
    !s.diff && s.rows.plot.length === 0 && !s.rows.world.slices.length && !s.rows.world.subjects.length;
  return (
    <div class="card" data-testid="change-detail" data-id={c.id}>
      <div class="row wrap">
        <strong data-testid="change-summary">{c.summary}</strong>
        <span class="badge soft">{who(c)}</span>
        {props.kept && <span class="badge">{t("changes.kept")}</span>}
        <span class="grow" />
        <button
          type="button"
          class="danger"
          onClick={() => revert(false)}
          disabled={busy}
          data-testid="revert"
        >
          {t("changes.revert")}
        </button>
        {c.turn !== null && (
          <button
            type="button"
            class="danger"
            onClick={() => revert(true)}
            disabled={busy}
            title={t("changes.revertTurnHint")}
            data-testid="revert-turn"
          >
            {t("changes.revertTurn")}
          </button>
        )}
        <button
          type="button"
          class="primary"
          onClick={() => props.onKeep(!props.kept)}
          title={t("changes.keepHint")}
          data-testid="keep"
        >
          {props.kept ? t("changes.unkeep") : t("changes.keep")}
        </button>
      </div>
      <dl class="meta">
        <dt>{t("changes.time")}</dt>
        <dd>{time(c.time, lang)}</dd>
        {c.tool && (
          <>
            <dt>{t("changes.tool")}</dt>
            <dd>
              <code>{c.tool}</code>
            </dd>
          </>
        )}
        {c.targets && c.targets.length > 0 && (
          <>
            <dt>{t("changes.files")}</dt>
            <dd>
              {c.targets.map((p) => (
                <a key={p} href={routeHash(props.project, "files", p)} class="target">
                  {p}
                </a>
              ))}
            </dd>
          </>
        )}
        {c.reverts && c.reverts.length > 0 && (
          <>
            <dt>{t("changes.revertBy")}</dt>
            <dd>{t("changes.reverts", { ids: c.reverts.join(", ") })}</dd>
          </>
        )}
      </dl>
      {done && (
        <p class="muted" role="status" data-testid="revert-done">
          {done}
        </p>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {conflicts && <RevertConflicts conflicts={conflicts} />}
      {s.diff && (
        <div data-testid="change-diff">
          <PreviewText text={s.diff} />
        </div>
      )}
      <RowDiffs rows={s.rows} />
      {empty && <p class="muted">{t("changes.noDiff")}</p>}
    </div>
  );
}

/** The project's recorded changes, newest first, grouped by who made them and by turn; one open with its diff. */
export function ChangesScreen({ project, changeId }: { project: string; changeId: string }) {
  const { t, lang } = useI18n();
  const who = useWho();
  const list = useAsync(() => api.changes(project, { limit: LIST_LIMIT }), [project]);
  const [kept, setKept] = useKept(project);
  const [showKept, setShowKept] = useState(false);
  // Agents' writes and saves in other tabs reach the inbox as they happen.
  useEffect(
    () =>
      subscribe("/api/events", (e) => {
        if (
          e.type === "reset" ||
          ((e.type === "files_changed" || e.type === "plot_changed") && e.project === project)
        )
          list.reload();
      }),
    [project],
  );
  const changes = list.data?.changes ?? [];
  const turns = new Map<string, ChangeTurn>((list.data?.turns ?? []).map((x) => [x.turn, x]));
  const waiting = changes.filter((c) => !kept.has(c.id)).length;
  const visible = changes.filter((c) => showKept || !kept.has(c.id) || c.id === changeId);
  return (
    <div class="split">
      <aside class="side" aria-label={t("nav.changes")}>
        <h2 class="side-title">{t("changes.inbox")}</h2>
        <p class="muted small" data-testid="changes-waiting">
          {t("changes.unreviewed", { n: waiting })}
        </p>
        <label class="check small">
          <input
            type="checkbox"
            checked={showKept}
            onChange={(e) => setShowKept((e.target as HTMLInputElement).checked)}
            data-testid="show-kept"
          />
          {t("changes.showKept")}
        </label>
        {list.error && (
          <p class="error" role="alert">
            {list.error.message}
          </p>
        )}
        {visible.length === 0 && !list.loading && <p class="muted small">{t("changes.none")}</p>}
        {groupChanges(visible).map((g) => (
          <section
            key={`${g.key}:${g.turns[0]!.changes[0]!.id}`}
            class="change-group"
            data-testid="change-group"
          >
            <h3 class="group-title">{who(g)}</h3>
            {g.turns.map((tg) => (
              <div
                key={tg.changes[0]!.id}
                class="turn-group"
                data-testid="turn-group"
                data-turn={tg.turn ?? ""}
              >
                {tg.turn !== null && (
                  // The message is the user's (or a parent agent's) text: shown as text, never markup.
                  <h4
                    class="turn-title small"
                    data-testid="turn-title"
                    title={turns.get(tg.turn)?.text ?? ""}
                  >
                    {turns.get(tg.turn)?.text ?? t("changes.turnGone")}
                  </h4>
                )}
                <ul class="tree">
                  {tg.changes.map((c) => (
                    <li key={c.id}>
                      <a
                        href={routeHash(project, "changes", c.id)}
                        class={`file${c.id === changeId ? " selected" : ""}${kept.has(c.id) ? " kept" : ""}`}
                        aria-current={c.id === changeId ? "true" : undefined}
                        data-testid="change"
                        data-id={c.id}
                        data-actor={c.actor}
                      >
                        <span class="grow">{c.summary}</span>
                        <span class="count">{time(c.time, lang)}</span>
                      </a>
                    </li>
                  ))}
                </ul>
              </div>
            ))}
          </section>
        ))}
      </aside>
      <section class="content scroll">
        {changeId ? (
          <ChangeDetail
            key={changeId}
            project={project}
            id={changeId}
            kept={kept.has(changeId)}
            onKeep={(on) => setKept(changeId, on)}
            onRecorded={list.reload}
          />
        ) : (
          <p class="muted">{t("changes.pick")}</p>
        )}
      </section>
    </div>
  );
}
