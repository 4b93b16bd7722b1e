import { api, type Subject, type Timeline, type TimelineScene } from "../api";
import { useI18n } from "../i18n";
import { routeHash } from "../route";
import { useAsync } from "../use-async";

type Row =
  | { kind: "scene"; instant: number; scene: TimelineScene; flashback: boolean }
  | { kind: "event"; instant: number; event: Timeline["events"][number] };

/**
 * Scenes and world events in story-time order. A scene is marked as told out of order when a scene
 * that happens after it comes earlier in the book (a flashback, or a frame told first).
 */
function rowsOf(t: Timeline): Row[] {
  const timed = t.scenes.filter((s) => s.startInstant !== null);
  const flashback = new Set<number>();
  let earliestLater = Number.POSITIVE_INFINITY;
  for (const s of [...timed].reverse()) {
    if (s.position !== null) {
      if (s.position > earliestLater) flashback.add(s.id);
      earliestLater = Math.min(earliestLater, s.position);
    }
  }
  const rows: Row[] = [
    ...timed.map((s) => ({
      kind: "scene" as const,
      instant: s.startInstant!,
      scene: s,
      flashback: flashback.has(s.id),
    })),
    ...t.events.map((e) => ({ kind: "event" as const, instant: e.instant, event: e })),
  ];
  // Stable: at one instant, scenes keep their order and come before that instant's events.
  return rows.sort((a, b) => a.instant - b.instant);
}

/** The subjects a timeline can be narrowed to, grouped by their type (character, place, …). */
function SubjectFilter({
  subjects,
  value,
  onChange,
}: {
  subjects: Subject[];
  value: string;
  onChange: (id: string) => void;
}) {
  const { t } = useI18n();
  const types = [...new Set(subjects.map((s) => s.type))].sort();
  return (
    <label class="timeline-filter">
      <span>{t("timeline.filter")}</span>
      <select
        value={value}
        onChange={(e) => onChange((e.target as HTMLSelectElement).value)}
        data-testid="timeline-filter"
      >
        <option value="">{t("timeline.everyone")}</option>
        {types.map((type) => (
          <optgroup key={type} label={type}>
            {subjects
              .filter((s) => s.type === type)
              .map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
          </optgroup>
        ))}
      </select>
    </label>
  );
}

function SceneLine({ project, s }: { project: string; s: TimelineScene }) {
  const { t } = useI18n();
  return (
    <span class="timeline-place muted small">
      {s.chapterId !== null ? (
        <a href={routeHash(project, "plot", String(s.chapterId))}>
          {t("timeline.inBook", { n: s.position ?? 0, chapter: s.chapterTitle ?? "" })}
        </a>
      ) : (
        t("timeline.notInChapter")
      )}{" "}
      · {s.threadTitle}
    </span>
  );
}

/** The story on its own calendar beside the order the book tells it in. */
export function TimelineView({
  project,
  subject,
  onSubject,
}: {
  project: string;
  subject: string;
  onSubject: (id: string) => void;
}) {
  const { t } = useI18n();
  const timeline = useAsync(() => api.timeline(project, subject || undefined), [project, subject]);
  const subjects = useAsync(() => api.subjects(project), [project]);
  const data = timeline.data;
  const untimed = data?.scenes.filter((s) => s.startInstant === null) ?? [];
  return (
    <div class="timeline" data-testid="timeline">
      <SubjectFilter subjects={subjects.data?.subjects ?? []} value={subject} onChange={onSubject} />
      {timeline.error && (
        <p class="error" role="alert">
          {timeline.error.message}
        </p>
      )}
      {!data && !timeline.error && <p class="muted">{t("common.loading")}</p>}
      {data?.eventsTruncated && (
        <p class="muted small">{t("timeline.eventsCut", { n: data.events.length })}</p>
      )}
      {data && (
        <ol class="timeline-list" aria-label={t("timeline.title")}>
          {rowsOf(data).map((r) =>
            r.kind === "scene" ? (
              <li
                key={`s${r.scene.id}`}
                class="timeline-row scene"
                data-testid="timeline-scene"
                data-id={r.scene.id}
              >
                <time class="timeline-time">{r.scene.startTime ?? r.instant}</time>
                <span class="badge">{t("timeline.scene")}</span>
                <strong>{r.scene.title}</strong>
                {r.flashback && <span class="badge soft">{t("timeline.toldLater")}</span>}
                <SceneLine project={project} s={r.scene} />
              </li>
            ) : (
              <li key={`e${r.event.id}`} class="timeline-row event" data-testid="timeline-event">
                <time class="timeline-time">{r.event.time}</time>
                <span class="badge soft">{t("timeline.event")}</span>
                <span>{r.event.title || r.event.summary}</span>
              </li>
            ),
          )}
        </ol>
      )}
      {untimed.length > 0 && (
        <section>
          <h3>{t("timeline.untimed")}</h3>
          <ul class="timeline-list">
            {untimed.map((s) => (
              <li key={s.id} class="timeline-row scene" data-testid="timeline-untimed">
                <strong>{s.title}</strong>
                <SceneLine project={project} s={s} />
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
