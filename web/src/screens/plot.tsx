import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { api, type PlotThread, type PromiseRow } from "../api";
import { useI18n } from "../i18n";
import { renderMarkdown } from "../markdown";
import { routeHash } from "../route";
import { useAsync } from "../use-async";
import { ChapterEditor, EditableTitle, MoveButtons, ROW_TOOLS, SCENE_DRAG, updateRow } from "./plot-edit";
import { ImportanceSelect, QuestionFields } from "./plot-fields";
import { TimelineView } from "./timeline";

function Brief({ project, chapterId }: { project: string; chapterId: number }) {
  const { t } = useI18n();
  const brief = useAsync(() => api.brief(project, chapterId), [project, chapterId]);
  if (brief.error)
    return (
      <p class="error" role="alert">
        {brief.error.message}
      </p>
    );
  if (!brief.data) return <p class="muted">{t("common.loading")}</p>;
  return (
    <article
      class="prose brief card"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a long brief scrolls, so it takes focus for the keyboard to scroll it (axe: scrollable-region-focusable)
      tabIndex={0}
      aria-label={t("plot.brief")}
      data-testid="brief"
      data-status={brief.data.status}
      dangerouslySetInnerHTML={{ __html: renderMarkdown(brief.data.markdown) }}
    />
  );
}

const BEAT_KINDS = ["plant", "advance", "setback", "payoff"] as const;

function PromiseCard({ p, project, onSaved }: { p: PromiseRow; project: string; onSaved: () => void }) {
  const { t } = useI18n();
  return (
    <div class="card promise" data-testid="promise">
      <div class="row">
        <strong>
          <EditableTitle
            project={project}
            row={ROW_TOOLS.promise}
            id={p.id}
            title={p.title}
            onSaved={onSaved}
          />
        </strong>
        <span class="badge">{p.status}</span>
        <span class="badge soft">{p.stage}</span>
        <ImportanceSelect project={project} promise={p} onSaved={onSaved} />
      </div>
      <dl class="meta beats" aria-label={t("plot.beats")}>
        {BEAT_KINDS.map((k) => (
          <Fragment key={k}>
            <dt>{k}</dt>
            <dd>{p.beats[k]}</dd>
          </Fragment>
        ))}
      </dl>
    </div>
  );
}

/** The story tree, a chapter's writer brief, the promise ledger and the decisions. */
export function PlotScreen({ project, chapterId }: { project: string; chapterId: string }) {
  const { t } = useI18n();
  const tree = useAsync(() => api.plotTree(project), [project]);
  const promises = useAsync(() => api.promises(project), [project]);
  const decisions = useAsync(() => api.decisions(project), [project]);
  const [tab, setTab] = useState<"brief" | "chapter" | "promises" | "decisions" | "timeline">("brief");
  const [timelineSubject, setTimelineSubject] = useState("");
  // Bumped when a scene dropped on the chapter list changed the open chapter's scenes.
  const [version, setVersion] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const chapter = Number(chapterId) || null;
  const tr = tree.data;
  const changed = () => {
    setError(null);
    tree.reload();
    setVersion((n) => n + 1);
  };
  const save = (p: Promise<unknown>) => p.then(changed, (err: Error) => setError(err.message));
  const allChapters = tr ? [...tr.acts.flatMap((a) => a.chapters), ...tr.ungroupedChapters] : [];
  type ChapterItem = { id: number; title: string; scenes: number };
  const chapterLink = (c: ChapterItem, i: number, siblings: ChapterItem[]) => (
    <li
      key={c.id}
      class="chapter-item"
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        const scene = Number(e.dataTransfer?.getData(SCENE_DRAG));
        if (scene) save(updateRow(project, ROW_TOOLS.scene, scene, { chapterId: c.id }));
      }}
    >
      <a
        href={routeHash(project, "plot", String(c.id))}
        class={`file${c.id === chapter ? " selected" : ""}`}
        aria-current={c.id === chapter ? "true" : undefined}
        data-chapter={c.id}
        onClick={() => setTab("brief")}
      >
        {c.title}{" "}
        <span class="count">{t(c.scenes === 1 ? "plot.scene" : "plot.scenes", { n: c.scenes })}</span>
      </a>
      <MoveButtons
        title={c.title}
        up={
          i > 0
            ? () =>
                save(updateRow(project, ROW_TOOLS.chapter, c.id, { order: { before: siblings[i - 1]!.id } }))
            : null
        }
        down={
          i < siblings.length - 1
            ? () =>
                save(updateRow(project, ROW_TOOLS.chapter, c.id, { order: { after: siblings[i + 1]!.id } }))
            : null
        }
      />
    </li>
  );
  // A thread and its scenes in causal order, each scene linking to its chapter's brief.
  const threadItem = (th: PlotThread) => (
    <li key={th.id}>
      {/* A heading, not a <summary>: the title's edit button may not sit inside another control. */}
      <div class="tree-group">
        <div class="tree-head">
          {th.isMain ? "★ " : ""}
          <EditableTitle
            project={project}
            row={ROW_TOOLS.thread}
            id={th.id}
            title={th.title}
            onSaved={changed}
          />{" "}
          <span class="count">{t(th.scenes === 1 ? "plot.scene" : "plot.scenes", { n: th.scenes })}</span>
        </div>
        <ul class="tree">
          {(th.sceneList ?? []).map((sc) => (
            <li key={sc.id}>
              {sc.chapterId === null ? (
                <span class="leaf">{sc.title}</span>
              ) : (
                <a
                  href={routeHash(project, "plot", String(sc.chapterId))}
                  class="file"
                  onClick={() => setTab("brief")}
                >
                  {sc.title} <span class="count">{sc.status}</span>
                </a>
              )}
            </li>
          ))}
        </ul>
      </div>
    </li>
  );
  return (
    <div class="split">
      <aside class="side" aria-label={t("plot.tree")}>
        <h2 class="side-title">{tr?.story.title ?? t("plot.tree")}</h2>
        {tr && (
          <>
            <h3 class="muted small">{t("plot.carrier")}</h3>
            <ul class="tree" data-testid="plot-tree">
              {tr.acts.map((a) => (
                <li key={a.id}>
                  <div class="tree-group">
                    <div class="tree-head">
                      <EditableTitle
                        project={project}
                        row={ROW_TOOLS.act}
                        id={a.id}
                        title={a.title}
                        onSaved={changed}
                      />
                    </div>
                    <ul class="tree">{a.chapters.map(chapterLink)}</ul>
                  </div>
                </li>
              ))}
              {tr.ungroupedChapters.map(chapterLink)}
            </ul>
            <h3 class="muted small">{t("plot.causal")}</h3>
            <ul class="tree" data-testid="thread-tree">
              {tr.phases.map((p) => (
                <li key={p.id}>
                  <details open>
                    <summary>{p.title}</summary>
                    <ul class="tree">{p.threads.map(threadItem)}</ul>
                  </details>
                </li>
              ))}
              {tr.ungroupedThreads.map(threadItem)}
            </ul>
          </>
        )}
        {tree.error && <p class="error">{tree.error.message}</p>}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </aside>
      <section class="content scroll">
        <div class="tabs" role="tablist">
          {(["brief", "chapter", "promises", "decisions", "timeline"] as const).map((k) => (
            <button
              key={k}
              type="button"
              role="tab"
              aria-selected={tab === k}
              onClick={() => setTab(k)}
              data-testid={`tab-${k}`}
            >
              {t(`plot.${k}`)}
            </button>
          ))}
        </div>
        {tab === "brief" &&
          (chapter ? (
            <Brief project={project} chapterId={chapter} />
          ) : (
            <p class="muted">{t("plot.pickChapter")}</p>
          ))}
        {tab === "chapter" &&
          (chapter ? (
            <ChapterEditor
              project={project}
              chapterId={chapter}
              chapters={allChapters}
              version={version}
              onChanged={tree.reload}
            />
          ) : (
            <p class="muted">{t("plot.pickChapter")}</p>
          ))}
        {tab === "timeline" && (
          <TimelineView project={project} subject={timelineSubject} onSubject={setTimelineSubject} />
        )}
        {tab === "promises" &&
          (promises.data?.rows.length ? (
            promises.data.rows.map((p) => (
              <PromiseCard key={p.id} p={p} project={project} onSaved={promises.reload} />
            ))
          ) : (
            <p class="muted">{t("plot.none")}</p>
          ))}
        {tab === "decisions" &&
          (decisions.data?.rows.length ? (
            decisions.data.rows.map((d) => (
              <div key={d.id} class="card decision">
                <strong>
                  <EditableTitle
                    project={project}
                    row={ROW_TOOLS.decision}
                    id={d.id}
                    title={d.title}
                    onSaved={decisions.reload}
                  />
                </strong>{" "}
                <span class="badge">{d.status}</span>
                <QuestionFields project={project} decision={d} onSaved={decisions.reload} />
                {d.anchor.kind !== "story" && (
                  <p class="muted small">
                    {d.anchor.kind} {d.anchor.path ?? (d.anchor.id === null ? "" : `#${d.anchor.id}`)}
                  </p>
                )}
              </div>
            ))
          ) : (
            <p class="muted">{t("plot.none")}</p>
          ))}
      </section>
    </div>
  );
}
