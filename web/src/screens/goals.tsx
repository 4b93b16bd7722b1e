import { useState } from "preact/hooks";
import { api, type GoalsView } from "../api";
import { useI18n } from "../i18n";
import { useAsync } from "../use-async";

type Day = GoalsView["days"][number];
type Goals = GoalsView["goals"];

const net = (d: Day) => d.you.added - d.you.removed + d.agents.added - d.agents.removed;
const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

/** A words target typed by the author: a positive whole number, or empty for none. */
function parseTarget(text: string): number | null | "bad" {
  if (text.trim() === "") return null;
  const n = Number(text);
  return Number.isInteger(n) && n >= 1 ? n : "bad";
}

function TargetInput(props: {
  id: string;
  label: string;
  value: number | null;
  onChange: (v: string) => void;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="number"
        min={1}
        step={1}
        inputMode="numeric"
        value={props.value ?? ""}
        onInput={(e) => props.onChange(e.currentTarget.value)}
      />
    </div>
  );
}

/** A bar of words against a target, with the figures in words beside it. */
function Progress(props: { words: number; target: number | null; label: string; testId: string }) {
  const { t } = useI18n();
  const met = props.target !== null && props.words >= props.target;
  return (
    <div class="goal-progress" data-testid={props.testId} data-met={met}>
      <span>{props.label}</span>
      {props.target !== null && (
        <progress
          max={props.target}
          value={Math.max(0, Math.min(props.words, props.target))}
          aria-label={props.label}
        />
      )}
      <span>
        {props.target === null
          ? t("goals.words", { n: props.words })
          : t("goals.ofTarget", { n: props.words, target: props.target })}
      </span>
      {met && <strong class="goal-met">{t("goals.met")}</strong>}
    </div>
  );
}

/**
 * The author's targets (per day, for the book, per chapter), today's words against the daily one,
 * the last two weeks by you and by agents (from the history), and each chapter against its target.
 */
export function GoalsScreen({ project }: { project: string }) {
  const { t } = useI18n();
  const view = useAsync(() => api.goals(project), [project]);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  if (view.error)
    return (
      <section class="content scroll goals">
        <h2>{t("goals.title")}</h2>
        <p class="error" role="alert">
          {view.error.message}
        </p>
      </section>
    );
  if (!view.data)
    return (
      <section class="content scroll goals">
        <h2>{t("goals.title")}</h2>
        <p class="muted">{t("common.loading")}</p>
      </section>
    );
  const { goals, progress, days } = view.data;
  const today = days.at(-1)!;
  const shown = (key: string, value: number | null) => (key in draft ? draft[key]! : (value ?? ""));
  const save = async (e: Event) => {
    e.preventDefault();
    const next: Goals = { daily: goals.daily, book: goals.book, chapters: { ...goals.chapters } };
    for (const [key, text] of Object.entries(draft)) {
      const v = parseTarget(text);
      if (v === "bad") {
        setError(t("goals.bad"));
        return;
      }
      if (key === "daily" || key === "book") next[key] = v;
      else if (v === null) delete next.chapters[key];
      else next.chapters[key] = v;
    }
    try {
      await api.setGoals(project, next);
      setDraft({});
      setError(null);
      view.reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const edit = (key: string) => (v: string) => setDraft({ ...draft, [key]: v });
  return (
    <section class="content scroll goals" data-testid="goals">
      <h2>{t("goals.title")}</h2>
      <Progress words={net(today)} target={goals.daily} label={t("goals.today")} testId="goal-today" />
      <Progress words={progress.total} target={goals.book} label={t("goals.book")} testId="goal-book" />
      <form class="fields-form goals-form" onSubmit={save}>
        <TargetInput
          id="goal-daily"
          label={t("goals.dailyTarget")}
          value={shown("daily", goals.daily) === "" ? null : Number(shown("daily", goals.daily))}
          onChange={edit("daily")}
        />
        <TargetInput
          id="goal-book-target"
          label={t("goals.bookTarget")}
          value={shown("book", goals.book) === "" ? null : Number(shown("book", goals.book))}
          onChange={edit("book")}
        />
        <h3>{t("goals.chapters")}</h3>
        {progress.chapters.length === 0 ? (
          <p class="muted">{t("goals.noChapters")}</p>
        ) : (
          <table class="goals-chapters">
            <thead>
              <tr>
                <th scope="col">{t("goals.chapter")}</th>
                <th scope="col">{t("goals.wordsHead")}</th>
                <th scope="col">{t("goals.target")}</th>
              </tr>
            </thead>
            <tbody>
              {progress.chapters.map((c, i) => (
                <tr
                  key={c.path}
                  data-testid="goal-chapter"
                  data-met={c.target !== null && c.words >= c.target}
                >
                  <th scope="row">{c.title}</th>
                  <td>{c.words}</td>
                  <td>
                    <input
                      type="number"
                      min={1}
                      step={1}
                      aria-label={t("goals.targetOf", { title: c.title })}
                      data-testid={`goal-chapter-${i + 1}`}
                      value={shown(c.path, c.target)}
                      onInput={(e) => edit(c.path)(e.currentTarget.value)}
                    />
                    {c.target !== null && c.words >= c.target && (
                      <span class="goal-met"> {t("goals.met")}</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <div class="row">
          <button type="submit" data-testid="goals-save">
            {t("goals.save")}
          </button>
        </div>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
      <h3>{t("goals.log")}</h3>
      <table class="goals-log" data-testid="goal-log">
        <thead>
          <tr>
            <th scope="col">{t("goals.day")}</th>
            <th scope="col">{t("goals.you")}</th>
            <th scope="col">{t("goals.agents")}</th>
            <th scope="col">{t("goals.net")}</th>
          </tr>
        </thead>
        <tbody>
          {[...days].reverse().map((d) => (
            <tr key={d.day}>
              <th scope="row">
                <time dateTime={d.day}>{d.day}</time>
              </th>
              <td>
                {signed(d.you.added)} / −{d.you.removed}
              </td>
              <td>
                {signed(d.agents.added)} / −{d.agents.removed}
              </td>
              <td>{signed(net(d))}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted small">{t("goals.logHow")}</p>
    </section>
  );
}
