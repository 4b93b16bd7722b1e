// Editing the plot in place: every change is one plot write tool call (POST …/plot/save), so
// the workbench meets the same validation and leaves the same history as an agent.
import { useState } from "preact/hooks";
import { api } from "../api";
import { useI18n } from "../i18n";
import { useAsync } from "../use-async";
import { ChapterFields, SceneFields } from "./plot-fields";

/** The drag payload type of a scene row. */
export const SCENE_DRAG = "application/x-nbook-scene";

/** Which save_* tool edits a row, and the field that carries its id. */
export type RowTool = { tool: string; idKey: string };
export const ROW_TOOLS = {
  act: { tool: "save_story_act", idKey: "actId" },
  chapter: { tool: "save_story_chapter", idKey: "chapterId" },
  thread: { tool: "save_story_thread", idKey: "threadId" },
  scene: { tool: "save_story_scene", idKey: "sceneId" },
  promise: { tool: "save_story_promise", idKey: "promiseId" },
  decision: { tool: "save_story_decision", idKey: "decisionId" },
} satisfies Record<string, RowTool>;

/** Update one row through its tool. */
export function updateRow(project: string, row: RowTool, id: number, fields: Record<string, unknown>) {
  return api.plotSave(project, row.tool, { action: "update", [row.idKey]: id, ...fields });
}

/** A row's title with an edit button; the edit saves through the row's tool. */
export function EditableTitle(props: {
  project: string;
  row: RowTool;
  id: number;
  title: string;
  onSaved: () => void;
}) {
  const { t } = useI18n();
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const testId = `${props.row.idKey}-${props.id}`;
  if (draft === null)
    return (
      <span class="editable">
        <span data-testid={`title-${testId}`}>{props.title}</span>{" "}
        <button
          type="button"
          class="icon"
          aria-label={t("plot.edit", { title: props.title })}
          data-testid={`edit-${testId}`}
          onClick={(e) => {
            // Inside a <summary> the click would also fold the group.
            e.preventDefault();
            setError(null);
            setDraft(props.title);
          }}
        >
          ✎
        </button>
      </span>
    );
  const save = async (e: Event) => {
    e.preventDefault();
    try {
      await updateRow(props.project, props.row, props.id, { title: draft });
      setDraft(null);
      props.onSaved();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form class="inline-edit" onSubmit={save} data-testid={`form-${testId}`}>
      <input
        value={draft}
        aria-label={t("plot.title")}
        onInput={(e) => setDraft(e.currentTarget.value)}
        onKeyDown={(e) => e.key === "Escape" && setDraft(null)}
      />
      <button type="submit">{t("plot.save")}</button>
      <button type="button" onClick={() => setDraft(null)}>
        {t("common.cancel")}
      </button>
      {error && (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}

/** Up/down buttons for a row among its siblings: the keyboard way to reorder. */
export function MoveButtons(props: { title: string; up: (() => void) | null; down: (() => void) | null }) {
  const { t } = useI18n();
  return (
    <span class="move">
      <button
        type="button"
        class="icon"
        disabled={!props.up}
        aria-label={t("plot.moveUp", { title: props.title })}
        onClick={() => props.up?.()}
      >
        ↑
      </button>
      <button
        type="button"
        class="icon"
        disabled={!props.down}
        aria-label={t("plot.moveDown", { title: props.title })}
        onClick={() => props.down?.()}
      >
        ↓
      </button>
    </span>
  );
}

type ChapterRef = { id: number; title: string };

/**
 * A chapter's title and its scenes in reading order: rename, reorder (drag or ↑/↓), move a scene
 * to another chapter (drag onto the chapter list, or the select), rename a scene.
 */
export function ChapterEditor(props: {
  project: string;
  chapterId: number;
  chapters: ChapterRef[];
  /** Bumped by the screen when a drop elsewhere changed this chapter. */
  version: number;
  onChanged: () => void;
}) {
  const { t } = useI18n();
  const { project, chapterId } = props;
  const detail = useAsync(() => api.chapter(project, chapterId), [project, chapterId, props.version]);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const run = (p: Promise<unknown>) =>
    p.then(
      () => {
        setError(null);
        detail.reload();
        props.onChanged();
      },
      (err: Error) => setError(err.message),
    );
  const scene = (id: number, fields: Record<string, unknown>) =>
    run(updateRow(project, ROW_TOOLS.scene, id, fields));
  if (detail.error)
    return (
      <p class="error" role="alert">
        {detail.error.message}
      </p>
    );
  if (!detail.data) return <p class="muted">{t("common.loading")}</p>;
  const { chapter, scenes } = detail.data;
  const saved = () => {
    detail.reload();
    props.onChanged();
  };
  return (
    <div class="chapter-editor" data-testid="chapter-editor">
      <h2>
        <EditableTitle
          project={project}
          row={ROW_TOOLS.chapter}
          id={chapter.id}
          title={chapter.title}
          onSaved={() => {
            detail.reload();
            props.onChanged();
          }}
        />
      </h2>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <ChapterFields project={project} chapter={chapter} onSaved={saved} />
      {scenes.length === 0 ? (
        <p class="muted">{t("plot.noScenes")}</p>
      ) : (
        <>
          <p class="muted small">{t("plot.dragHint")}</p>
          <ol class="scene-list" data-testid="chapter-scenes">
            {scenes.map((s, i) => (
              <li
                key={s.id}
                class="card scene-row"
                draggable
                data-scene={s.id}
                onDragStart={(e) => e.dataTransfer?.setData(SCENE_DRAG, String(s.id))}
                onDragOver={(e) => e.preventDefault()}
                onDrop={(e) => {
                  e.preventDefault();
                  const moved = Number(e.dataTransfer?.getData(SCENE_DRAG));
                  if (moved && moved !== s.id)
                    scene(moved, { chapterId: chapter.id, chapterOrder: { before: s.id } });
                }}
              >
                <span class="grip" aria-hidden="true">
                  ⋮⋮
                </span>
                <EditableTitle
                  project={project}
                  row={ROW_TOOLS.scene}
                  id={s.id}
                  title={s.title}
                  onSaved={() => {
                    detail.reload();
                    props.onChanged();
                  }}
                />
                <span class="badge soft">{s.status}</span>
                <button
                  type="button"
                  class="icon"
                  aria-expanded={open === s.id}
                  aria-label={t("plot.details", { title: s.title })}
                  data-testid={`details-sceneId-${s.id}`}
                  onClick={() => setOpen(open === s.id ? null : s.id)}
                >
                  ⋯
                </button>
                <MoveButtons
                  title={s.title}
                  up={i > 0 ? () => scene(s.id, { chapterOrder: { before: scenes[i - 1]!.id } }) : null}
                  down={
                    i < scenes.length - 1
                      ? () => scene(s.id, { chapterOrder: { after: scenes[i + 1]!.id } })
                      : null
                  }
                />
                <select
                  aria-label={t("plot.moveTo", { title: s.title })}
                  value={String(chapter.id)}
                  onChange={(e) => scene(s.id, { chapterId: Number(e.currentTarget.value) })}
                >
                  {props.chapters.map((c) => (
                    <option key={c.id} value={String(c.id)}>
                      {c.title}
                    </option>
                  ))}
                </select>
              </li>
            ))}
          </ol>
          {open !== null && scenes.some((s) => s.id === open) && (
            <SceneFields project={project} sceneId={open} onSaved={saved} />
          )}
        </>
      )}
    </div>
  );
}
