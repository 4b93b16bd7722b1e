import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { api, type PlotThread, type PromiseRow } from "../api";
import { useI18n } from "../i18n";
import { renderMarkdown } from "../markdown";
import { routeHash } from "../route";
import { useAsync } from "../use-async";

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
    // Focusable, so a keyboard can scroll a long brief.
    <article
      class="prose brief card"
      tabIndex={0}
      aria-label={t("plot.brief")}
      data-testid="brief"
      data-status={brief.data.status}
      dangerouslySetInnerHTML={{ __html: renderMarkdown(brief.data.markdown) }}
    />
  );
}

const BEAT_KINDS = ["plant", "advance", "setback", "payoff"] as const;

function PromiseCard({ p }: { p: PromiseRow }) {
  const { t } = useI18n();
  return (
    <div class="card promise" data-testid="promise">
      <div class="row">
        <strong>{p.title}</strong>
        <span class="badge">{p.status}</span>
        <span class="badge soft">{p.stage}</span>
        <span class="muted small">{p.importance}</span>
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
  const [tab, setTab] = useState<"brief" | "promises" | "decisions">("brief");
  const chapter = Number(chapterId) || null;
  const tr = tree.data;
  const chapterLink = (c: { id: number; title: string; scenes: number }) => (
    <li key={c.id}>
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
    </li>
  );
  // A thread and its scenes in causal order, each scene linking to its chapter's brief.
  const threadItem = (th: PlotThread) => (
    <li key={th.id}>
      <details open>
        <summary>
          {th.isMain ? "★ " : ""}
          {th.title}{" "}
          <span class="count">{t(th.scenes === 1 ? "plot.scene" : "plot.scenes", { n: th.scenes })}</span>
        </summary>
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
      </details>
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
                  <details open>
                    <summary>{a.title}</summary>
                    <ul class="tree">{a.chapters.map(chapterLink)}</ul>
                  </details>
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
      </aside>
      <section class="content scroll">
        <div class="tabs" role="tablist">
          {(["brief", "promises", "decisions"] as const).map((k) => (
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
        {tab === "promises" &&
          (promises.data?.rows.length ? (
            promises.data.rows.map((p) => <PromiseCard key={p.id} p={p} />)
          ) : (
            <p class="muted">{t("plot.none")}</p>
          ))}
        {tab === "decisions" &&
          (decisions.data?.rows.length ? (
            decisions.data.rows.map((d) => (
              <div key={d.id} class="card decision">
                <strong>{d.title}</strong> <span class="badge">{d.status}</span>
                <p>{d.question}</p>
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
