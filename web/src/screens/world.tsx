import { useEffect, useState } from "preact/hooks";
import { api, type Issue, type SubjectState } from "../api";
import { useI18n } from "../i18n";
import { routeHash } from "../route";
import { useAsync } from "../use-async";

function formatValue(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v, null, 1);
}

/** A subject's state as an attribute table; attributes that differ from `other` are marked. */
function StateTable({ s, other, testId }: { s: SubjectState; other?: SubjectState; testId: string }) {
  const keys = Object.keys(s.state).sort();
  return (
    <table class="state" data-testid={testId}>
      <caption>{s.at}</caption>
      <tbody>
        {keys.map((k) => {
          const changed = other && JSON.stringify(other.state[k]) !== JSON.stringify(s.state[k]);
          return (
            <tr key={k} class={changed ? "changed" : undefined}>
              <th scope="row">{k}</th>
              <td>
                <pre>{formatValue(s.state[k])}</pre>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function IssueCard({ issue }: { issue: Issue }) {
  const { t } = useI18n();
  return (
    <details class={`issue card sev-${issue.severity}`} data-testid="issue">
      <summary>
        <span class="badge">{issue.label}</span> {issue.title}{" "}
        <code class="small">
          {issue.subjectId}
          {issue.attr}
        </code>
        {issue.time && <span class="muted small"> · {issue.time}</span>}
      </summary>
      <p>{issue.message}</p>
      <dl>
        <dt>{t("world.whatHappened")}</dt>
        <dd>{issue.explanation.whatHappened}</dd>
        <dt>{t("world.why")}</dt>
        <dd>{issue.explanation.whyItMatters}</dd>
        <dt>{t("world.action")}</dt>
        <dd>{issue.explanation.suggestedAction}</dd>
      </dl>
    </details>
  );
}

/** One subject: its state at a time (and another, to compare), its history and its issues. */
function SubjectView({ project, id, example }: { project: string; id: string; example: string }) {
  const { t } = useI18n();
  const [at, setAt] = useState("");
  const [at2, setAt2] = useState("");
  const [shown, setShown] = useState<{ a?: string; b?: string }>({});
  const [states, setStates] = useState<{ a?: SubjectState; b?: SubjectState }>({});
  const [error, setError] = useState<string | null>(null);
  const history = useAsync(() => api.subjectHistory(project, id), [project, id]);
  const issues = useAsync(() => api.worldIssues(project, id), [project, id]);

  useEffect(() => {
    setError(null);
    Promise.all([
      api.subjectState(project, id, shown.a || undefined),
      shown.b ? api.subjectState(project, id, shown.b) : Promise.resolve(undefined),
    ]).then(
      ([a, b]) => setStates({ a, b }),
      (e: Error) => setError(e.message),
    );
  }, [project, id, shown]);

  return (
    <section class="content scroll" aria-label={id}>
      <h2>
        {states.a?.name || id} <span class="muted small">({states.a?.type})</span>
      </h2>
      <form
        class="row wrap"
        onSubmit={(e) => {
          e.preventDefault();
          setShown({ a: at.trim(), b: at2.trim() });
        }}
      >
        <label>
          {t("world.at")}
          <input
            value={at}
            placeholder={t("world.latest")}
            onInput={(e) => setAt((e.target as HTMLInputElement).value)}
            list="world-times"
            data-testid="at"
          />
        </label>
        <label>
          {t("world.compare")}
          <input
            value={at2}
            placeholder={example}
            onInput={(e) => setAt2((e.target as HTMLInputElement).value)}
            list="world-times"
            data-testid="at2"
          />
        </label>
        <button type="submit" class="primary" data-testid="show-state">
          {t("world.show")}
        </button>
        <span class="muted small">
          {t("world.atHint")} <code>{example}</code>
        </span>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="states">
        {states.a && <StateTable s={states.a} other={states.b} testId="state-a" />}
        {states.b && <StateTable s={states.b} other={states.a} testId="state-b" />}
      </div>
      {/* The subject's change times, offered in both time fields. */}
      <datalist id="world-times">
        {[...new Set((history.data?.history ?? []).map((h) => h.time).filter(Boolean))].map((time) => (
          <option key={time} value={time} />
        ))}
      </datalist>
      <h3>{t("world.history")}</h3>
      <ol class="timeline" data-testid="history">
        {(history.data?.history ?? []).map((h) => (
          <li key={`${h.sliceId}-${h.path}-${h.op}`}>
            <button type="button" class="link" onClick={() => setAt(h.time ?? String(h.instant))}>
              {h.time ?? h.instant}
            </button>{" "}
            <strong>{h.sliceTitle}</strong>{" "}
            <code class="small">
              {h.op} {h.path || "/"}
              {h.value === undefined ? "" : ` ${JSON.stringify(h.value)}`}
            </code>
            {h.summary && <span class="muted"> — {h.summary}</span>}
          </li>
        ))}
      </ol>
      <h3>{t("world.issues")}</h3>
      {issues.data?.issues.length ? (
        issues.data.issues.map((i) => <IssueCard key={`${i.code}-${i.attr}-${i.time}`} issue={i} />)
      ) : (
        <p class="muted">{t("world.noIssues")}</p>
      )}
    </section>
  );
}

/** The World Engine: subjects, a subject's state at calendar times, its history, issues. */
export function WorldScreen({ project, subjectId }: { project: string; subjectId: string }) {
  const { t } = useI18n();
  // Agents change the world at any time: each navigation reads the lists again.
  const subjects = useAsync(() => api.subjects(project), [project, subjectId]);
  const schema = useAsync(() => api.worldSchema(project), [project]);
  const issues = useAsync(() => api.worldIssues(project), [project, subjectId]);
  const cal = schema.data?.calendar;
  const example = cal?.examples?.[0] ?? cal?.zero ?? "";
  const types = [...new Set((subjects.data?.subjects ?? []).map((s) => s.type))].sort();
  return (
    <div class="split">
      <aside class="side" aria-label={t("world.subjects")}>
        <h2 class="side-title">{t("world.subjects")}</h2>
        {types.map((type) => (
          <div key={type}>
            <h3 class="muted small">{type}</h3>
            <ul class="tree" data-testid="subjects">
              {subjects
                .data!.subjects.filter((s) => s.type === type)
                .map((s) => (
                  <li key={s.id}>
                    <a
                      href={routeHash(project, "world", s.id)}
                      class={`file${s.id === subjectId ? " selected" : ""}`}
                      aria-current={s.id === subjectId ? "true" : undefined}
                      data-subject={s.id}
                    >
                      {s.name || s.id}
                    </a>
                  </li>
                ))}
            </ul>
          </div>
        ))}
        {cal && (
          <p class="muted small">
            {cal.kind} · <code>{cal.format}</code>
          </p>
        )}
      </aside>
      {subjectId ? (
        <SubjectView key={subjectId} project={project} id={subjectId} example={example} />
      ) : (
        <section class="content scroll">
          <p class="muted">{t("world.pick")}</p>
          <h3>{t("world.issues")}</h3>
          {issues.data?.issues.length ? (
            issues.data.issues.map((i) => (
              <IssueCard key={`${i.code}-${i.subjectId}-${i.attr}-${i.time}`} issue={i} />
            ))
          ) : (
            <p class="muted">{t("world.noIssues")}</p>
          )}
        </section>
      )}
    </div>
  );
}
