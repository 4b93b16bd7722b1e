// The plot's other fields, edited in place: a chapter's brief and note, a scene's status, outcome,
// pacing and texts, a promise's importance, a decision's question. Each save is one update through
// the row's plot write tool, sending only the fields the author changed.
import { useState } from "preact/hooks";
import { api } from "../api";
import { type MessageKey, useI18n } from "../i18n";
import { useAsync } from "../use-async";
import { ROW_TOOLS, type RowTool, updateRow } from "./plot-edit";

/** One editable field: a line, a paragraph, or a choice (with "—" for none when nullable). */
type Field = {
  key: string;
  label: MessageKey;
  kind: "line" | "text" | "choice";
  options?: readonly string[];
  /** An empty value is sent as null (the tool clears the field) instead of "". */
  nullable?: boolean;
};

const BRIEF_FIELDS = [
  "goal",
  "pov",
  "tone",
  "pacing",
  "readerKnows",
  "protagonistKnows",
  "mustHide",
  "hintOnly",
  "opening",
  "ending",
  "doNotWrite",
] as const;

const SCENE_FIELDS: Field[] = [
  {
    key: "status",
    label: "plot.field.status",
    kind: "choice",
    options: ["draft", "active", "written", "revised"],
  },
  {
    key: "outcomeType",
    label: "plot.field.outcomeType",
    kind: "choice",
    nullable: true,
    options: ["yes_but", "no_and", "yes_and", "no_but", "yes", "no", "no_conflict", "passive"],
  },
  {
    key: "pacingRole",
    label: "plot.field.pacingRole",
    kind: "choice",
    nullable: true,
    options: ["setup", "escalation", "breather", "climax", "resolution"],
  },
  { key: "summary", label: "plot.field.summary", kind: "text" },
  { key: "purpose", label: "plot.field.purpose", kind: "text", nullable: true },
  { key: "writingTip", label: "plot.field.writingTip", kind: "text", nullable: true },
  { key: "note", label: "plot.field.note", kind: "text", nullable: true },
];

type Values = Record<string, string | null>;

/** A form over some fields of one row; Save sends the changed ones through `save`. */
function FieldsForm(props: {
  fields: Field[];
  values: Values;
  testId: string;
  save: (changed: Record<string, string | null>) => Promise<unknown>;
  onSaved: () => void;
}) {
  const { t } = useI18n();
  const [draft, setDraft] = useState<Values>(props.values);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const value = (f: Field) => draft[f.key] ?? "";
  const submit = async (e: Event) => {
    e.preventDefault();
    const changed: Record<string, string | null> = {};
    for (const f of props.fields) {
      const now = value(f);
      if (now === (props.values[f.key] ?? "")) continue;
      changed[f.key] = now === "" && f.nullable ? null : now;
    }
    if (Object.keys(changed).length === 0) return;
    try {
      await props.save(changed);
      setError(null);
      setSaved(true);
      props.onSaved();
    } catch (err) {
      setSaved(false);
      setError((err as Error).message);
    }
  };
  const set = (key: string, v: string) => {
    setSaved(false);
    setDraft({ ...draft, [key]: v });
  };
  return (
    <form class="fields-form" onSubmit={submit} data-testid={props.testId}>
      {props.fields.map((f) => (
        <div key={f.key} class="field">
          <label for={`${props.testId}-${f.key}`}>{t(f.label)}</label>
          {f.kind === "choice" ? (
            <select
              id={`${props.testId}-${f.key}`}
              value={value(f)}
              name={f.key}
              onChange={(e) => set(f.key, e.currentTarget.value)}
            >
              {f.nullable && <option value="">—</option>}
              {f.options!.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          ) : f.kind === "line" ? (
            <input
              id={`${props.testId}-${f.key}`}
              name={f.key}
              value={value(f)}
              onInput={(e) => set(f.key, e.currentTarget.value)}
            />
          ) : (
            <textarea
              id={`${props.testId}-${f.key}`}
              name={f.key}
              rows={2}
              spellcheck
              value={value(f)}
              onInput={(e) => set(f.key, e.currentTarget.value)}
            />
          )}
        </div>
      ))}
      <div class="row">
        <button type="submit">{t("plot.save")}</button>
        {saved && (
          <span class="muted small" role="status">
            {t("plot.saved")}
          </span>
        )}
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/** A chapter's writer-brief fields and note. */
export function ChapterFields(props: {
  project: string;
  chapter: { id: number; note: string | null; brief: Record<string, string | null> };
  onSaved: () => void;
}) {
  const { t } = useI18n();
  const fields: Field[] = [
    ...BRIEF_FIELDS.map((k) => ({
      key: k,
      label: `plot.brief.${k}` as MessageKey,
      kind: "text" as const,
      nullable: true,
    })),
    { key: "note", label: "plot.field.note", kind: "text", nullable: true },
  ];
  const { note, brief } = props.chapter;
  return (
    <details class="card fields" data-testid="chapter-fields">
      <summary>{t("plot.briefFields")}</summary>
      <FieldsForm
        key={props.chapter.id}
        fields={fields}
        values={{ ...brief, note }}
        testId={`fields-chapterId-${props.chapter.id}`}
        save={({ note: n, ...b }) =>
          updateRow(props.project, ROW_TOOLS.chapter, props.chapter.id, {
            ...(n !== undefined ? { note: n } : {}),
            ...(Object.keys(b).length ? { brief: b } : {}),
          })
        }
        onSaved={props.onSaved}
      />
    </details>
  );
}

/** One scene's fields, read whole from the server. */
export function SceneFields(props: { project: string; sceneId: number; onSaved: () => void }) {
  const { t } = useI18n();
  const scene = useAsync(() => api.scene(props.project, props.sceneId), [props.project, props.sceneId]);
  if (scene.error)
    return (
      <p class="error" role="alert">
        {scene.error.message}
      </p>
    );
  if (!scene.data) return <p class="muted">{t("common.loading")}</p>;
  const s = scene.data;
  return (
    <section class="card fields" aria-labelledby={`scene-fields-${s.id}`}>
      <h3 id={`scene-fields-${s.id}`}>{t("plot.sceneFields", { title: s.title })}</h3>
      <FieldsForm
        key={s.id}
        fields={SCENE_FIELDS}
        values={Object.fromEntries(SCENE_FIELDS.map((f) => [f.key, (s[f.key] as string | null) ?? null]))}
        testId={`fields-sceneId-${s.id}`}
        save={(changed) => updateRow(props.project, ROW_TOOLS.scene, s.id, changed)}
        onSaved={() => {
          scene.reload();
          props.onSaved();
        }}
      />
    </section>
  );
}

/** A promise's importance, saved as soon as it is chosen. */
export function ImportanceSelect(props: {
  project: string;
  promise: { id: number; title: string; importance: string };
  onSaved: () => void;
}) {
  const { t } = useI18n();
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <select
        aria-label={t("plot.importanceOf", { title: props.promise.title })}
        value={props.promise.importance}
        data-testid={`importance-${props.promise.id}`}
        onChange={(e) =>
          updateRow(props.project, ROW_TOOLS.promise, props.promise.id, {
            importance: e.currentTarget.value,
          }).then(
            () => {
              setError(null);
              props.onSaved();
            },
            (err: Error) => setError(err.message),
          )
        }
      >
        {["low", "medium", "high"].map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}

/** A decision's question, as a one-field form. */
export function QuestionFields(props: {
  project: string;
  decision: { id: number; question: string };
  onSaved: () => void;
}) {
  const row: RowTool = ROW_TOOLS.decision;
  return (
    <FieldsForm
      key={`${props.decision.id}:${props.decision.question}`}
      fields={[{ key: "question", label: "plot.field.question", kind: "text" }]}
      values={{ question: props.decision.question }}
      testId={`fields-decisionId-${props.decision.id}`}
      save={(changed) => updateRow(props.project, row, props.decision.id, changed)}
      onSaved={props.onSaved}
    />
  );
}
