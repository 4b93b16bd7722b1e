import { useEffect, useState } from "preact/hooks";
import { api, type Job, type WorkflowRunView } from "../api";
import { type MessageKey, useI18n } from "../i18n";
import { routeHash } from "../route";
import { subscribe } from "../sse";
import { useAsync } from "../use-async";

const ACTIVE = new Set(["queued", "running", "waiting"]);
const STATUSES = new Set(["queued", "running", "waiting", "completed", "failed", "cancelled", "interrupted"]);

/** A job's or run's status in the UI language (an unknown one as the server wrote it). */
const statusLabel = (t: ReturnType<typeof useI18n>["t"], status: string) =>
  STATUSES.has(status) ? t(`status.${status}` as MessageKey) : status;
/** How often running jobs' progress lines are read again (jobs report progress without events). */
const PROGRESS_POLL_MS = 2000;

// A month name, never 01/12/2026 (which reads as either day or month first).
const time = (iso: string | number | null | undefined, lang: string) =>
  iso === null || iso === undefined
    ? ""
    : new Date(iso).toLocaleString(lang === "zh" ? "zh-CN" : "en-GB", {
        dateStyle: "medium",
        timeStyle: "short",
      });

/** A run's result as the workflow returned it: text as is, anything else as indented JSON. */
const resultText = (r: unknown) => (typeof r === "string" ? r : JSON.stringify(r, null, 2));

function JobDetail({ project, id, onChanged }: { project: string; id: string; onChanged: () => void }) {
  const { t, lang } = useI18n();
  const job = useAsync(() => api.job(id), [id]);
  const [error, setError] = useState<string | null>(null);
  const j = job.data?.job;
  // Re-read while the job is active, so its progress line and end show up.
  useEffect(() => {
    if (!j || !ACTIVE.has(j.status)) return;
    const timer = setTimeout(job.reload, PROGRESS_POLL_MS);
    return () => clearTimeout(timer);
  }, [j]);
  if (!j) return <p class="muted">{job.error?.message ?? t("common.loading")}</p>;
  const cancel = async () => {
    setError(null);
    try {
      await api.cancelJob(id);
      job.reload();
      onChanged();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div class="card" data-testid="job-detail" data-status={j.status}>
      <div class="row">
        <h2 class="detail-title">{j.title}</h2>
        <span class="badge" data-testid="job-status">
          {statusLabel(t, j.status)}
        </span>
        <code class="small">{j.kind}</code>
        <span class="grow" />
        {ACTIVE.has(j.status) && (
          <button type="button" class="danger" onClick={cancel} data-testid="cancel-job">
            {t("jobs.cancel")}
          </button>
        )}
      </div>
      <dl class="meta">
        <dt>{t("jobs.started")}</dt>
        <dd>{time(j.startedAt ?? j.createdAt, lang)}</dd>
        {j.endedAt && (
          <>
            <dt>{t("jobs.ended")}</dt>
            <dd>{time(j.endedAt, lang)}</dd>
          </>
        )}
        {j.ownerSessionId && (
          <>
            <dt>{t("jobs.session")}</dt>
            <dd>
              <a href={routeHash(project, "agent", j.ownerSessionId)}>#{j.ownerSessionId}</a>
            </dd>
          </>
        )}
      </dl>
      {j.preview && (
        <>
          <h3>{t("jobs.progress")}</h3>
          <pre class="preview" data-testid="job-progress">
            {j.preview}
          </pre>
        </>
      )}
      {j.error && (
        <p class="error" role="alert">
          {j.error.code}: {j.error.message}
        </p>
      )}
      {j.result && (
        <>
          <h3>{t("jobs.result")}</h3>
          <pre class="preview">{j.result.text}</pre>
        </>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

type Ask = WorkflowRunView["pendingAsks"][number];
type Option = { id: string; label?: string };

/** One pending question of a run, as a control of its kind (approve, text, select, multi-select). */
function AskField({ ask, value, onChange }: { ask: Ask; value: unknown; onChange: (v: unknown) => void }) {
  const { t } = useI18n();
  const title = String(ask.spec.title ?? ask.spec.question ?? ask.key);
  const options = (Array.isArray(ask.spec.options) ? ask.spec.options : []) as Option[];
  const name = `ask-${ask.key}`;
  if (ask.spec.kind === "approve")
    return (
      <fieldset data-testid="ask" data-key={ask.key}>
        <legend>{title}</legend>
        {/* What is approved (a backfill batch lists its proposals here). */}
        {typeof ask.spec.description === "string" && (
          <pre class="ask-description">{ask.spec.description}</pre>
        )}
        {[true, false].map((v) => (
          <label key={String(v)} class="check">
            <input type="radio" name={name} checked={value === v} onChange={() => onChange(v)} />{" "}
            {v ? t("jobs.yes") : t("jobs.no")}
          </label>
        ))}
      </fieldset>
    );
  if (ask.spec.kind === "select") {
    const multi = ask.spec.multi === true;
    const chosen = Array.isArray(value) ? (value as string[]) : [];
    return (
      <fieldset data-testid="ask" data-key={ask.key}>
        <legend>{title}</legend>
        {options.map((o) => (
          <label key={o.id} class="check">
            <input
              type={multi ? "checkbox" : "radio"}
              name={name}
              checked={multi ? chosen.includes(o.id) : value === o.id}
              onChange={() =>
                onChange(
                  multi
                    ? chosen.includes(o.id)
                      ? chosen.filter((c) => c !== o.id)
                      : [...chosen, o.id]
                    : o.id,
                )
              }
            />{" "}
            {o.label ?? o.id}
          </label>
        ))}
      </fieldset>
    );
  }
  return (
    <label data-testid="ask" data-key={ask.key}>
      {title}
      <textarea
        value={String(value ?? "")}
        onInput={(e) => onChange((e.target as HTMLTextAreaElement).value)}
      />
    </label>
  );
}

function RunDetail({ project, id, onChanged }: { project: string; id: string; onChanged: () => void }) {
  const { t, lang } = useI18n();
  const view = useAsync(() => api.workflowRun(id), [id]);
  const [answers, setAnswers] = useState<Record<string, unknown>>({});
  const [error, setError] = useState<string | null>(null);
  const v = view.data;
  // Re-read while the run is active, so its progress and end show up (runs have no stream events).
  useEffect(() => {
    if (!v || !ACTIVE.has(v.run.status)) return;
    const timer = setTimeout(view.reload, PROGRESS_POLL_MS);
    return () => clearTimeout(timer);
  }, [v]);
  if (!v) return <p class="muted">{view.error?.message ?? t("common.loading")}</p>;
  const p = v.run.progress;
  // The run record carries its end beyond the listed fields (the schema is loose): read them checked.
  const run = v.run as typeof v.run & {
    result?: unknown;
    error?: { code: string; message: string } | null;
    logs?: string[];
  };
  const act = async (call: () => Promise<unknown>) => {
    setError(null);
    try {
      await call();
      setAnswers({});
      view.reload();
      onChanged();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div class="card" data-testid="run-detail" data-status={v.run.status}>
      <div class="row">
        <h2 class="detail-title">{v.run.title}</h2>
        <span class="badge">{statusLabel(t, v.run.status)}</span>
        <code class="small">{v.run.workflowKey}</code>
        <span class="grow" />
        {ACTIVE.has(v.run.status) && (
          <button
            type="button"
            class="danger"
            onClick={() => act(() => api.cancelWorkflowRun(id))}
            data-testid="cancel-run"
          >
            {t("jobs.cancel")}
          </button>
        )}
      </div>
      {p && (
        <p>
          {p.phase && <strong>{v.run.phases.find((ph) => ph.key === p.phase)?.title ?? p.phase} </strong>}
          {p.total ? (
            <progress max={p.total} value={p.done ?? 0}>
              {p.done}/{p.total}
            </progress>
          ) : null}{" "}
          {p.note}
        </p>
      )}
      {v.pendingAsks.length > 0 && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void act(() => api.answerWorkflowRun(id, answers));
          }}
        >
          <h3>{t("jobs.asks")}</h3>
          {v.pendingAsks.map((a) => (
            <AskField
              key={a.seq}
              ask={a}
              value={answers[a.key]}
              onChange={(val) => setAnswers({ ...answers, [a.key]: val })}
            />
          ))}
          <button type="submit" data-testid="answer-run">
            {t("jobs.answer")}
          </button>
        </form>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {run.error && (
        <div class="error-box" role="alert" data-testid="run-error">
          <h3>{t("jobs.error")}</h3>
          <p>
            <code>{run.error.code}</code> {run.error.message}
          </p>
        </div>
      )}
      {run.result !== undefined && run.result !== null && (
        <>
          <h3>{t("jobs.result")}</h3>
          <pre class="preview" data-testid="run-result">
            {resultText(run.result)}
          </pre>
        </>
      )}
      {run.logs && run.logs.length > 0 && (
        <>
          <h3>{t("jobs.logs")}</h3>
          <pre class="preview small" data-testid="run-logs">
            {run.logs.join("\n")}
          </pre>
        </>
      )}
      <h3>{t("jobs.participants")}</h3>
      <ul>
        {v.participants.map((pt) => (
          <li key={pt.sessionId}>
            <a href={routeHash(project, "agent", pt.sessionId)}>
              {pt.title ? `${pt.profileKey} · ${pt.title}` : pt.profileKey}
            </a>{" "}
            <span class="muted">#{pt.sessionId}</span>
            {pt.ephemeral === true && <span class="badge">{t("jobs.ephemeral")}</span>}
          </li>
        ))}
      </ul>
      <h3>{t("jobs.timeline")}</h3>
      <ol class="timeline">
        {v.timeline.map((e) => (
          <li key={e.seq}>
            {e.ok ? "✓" : "✗"} {e.kind}{" "}
            <span class="muted small">
              {e.ms} ms · {time(e.startedAt, lang)}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** Background jobs (commands and agent calls) and workflow runs of the project. */
export function JobsScreen({ project, item }: { project: string; item: string }) {
  const { t } = useI18n();
  const jobs = useAsync(() => api.jobs(project), [project]);
  const runs = useAsync(() => api.workflowRuns(project), [project]);
  // Jobs starting and ending reach the list as they happen.
  useEffect(
    () =>
      subscribe("/api/events", (e) => {
        if (e.type === "job_started" || e.type === "job_ended" || e.type === "reset") jobs.reload();
      }),
    [project],
  );
  const link = (id: string, label: string, status: string, testid: string) => (
    <li key={id}>
      <a
        href={routeHash(project, "jobs", id)}
        class={`file${id === item ? " selected" : ""}`}
        aria-current={id === item ? "true" : undefined}
        data-testid={testid}
        data-id={id}
      >
        {label} <span class="count">{statusLabel(t, status)}</span>
      </a>
    </li>
  );
  return (
    <div class="split">
      <aside class="side" aria-label={t("nav.jobs")}>
        <h2 class="side-title">{t("jobs.jobs")}</h2>
        {jobs.data?.jobs.length ? (
          <ul class="tree">{jobs.data.jobs.map((j: Job) => link(j.id, j.title, j.status, "job"))}</ul>
        ) : (
          <p class="muted small">{t("jobs.none")}</p>
        )}
        <h2 class="side-title">{t("jobs.runs")}</h2>
        {runs.data?.runs.length ? (
          <ul class="tree">{runs.data.runs.map((r) => link(r.id, r.title, r.status, "run"))}</ul>
        ) : (
          <p class="muted small">{t("jobs.none")}</p>
        )}
      </aside>
      <section class="content scroll">
        {item.startsWith("job_") ? (
          <JobDetail key={item} project={project} id={item} onChanged={jobs.reload} />
        ) : item.startsWith("run_") ? (
          <RunDetail key={item} project={project} id={item} onChanged={runs.reload} />
        ) : (
          <p class="muted">{t("jobs.pick")}</p>
        )}
      </section>
    </div>
  );
}
