import { useState } from "preact/hooks";
import { api, type PromiseInfo } from "../api";
import { routeHash } from "../app";
import { useI18n } from "../i18n";
import { renderMarkdown } from "../markdown";
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
    <article
      class="prose brief card"
      data-testid="brief"
      data-status={brief.data.status}
      dangerouslySetInnerHTML={{ __html: renderMarkdown(brief.data.markdown) }}
    />
  );
}

function PromiseCard({ project, p }: { project: string; p: PromiseInfo }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const detail = useAsync(
    () => (open ? api.promise(project, p.id) : Promise.resolve(undefined)),
    [project, p.id, open],
  );
  return (
    <details class="card promise" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>
        <strong>{p.title}</strong> <span class="badge">{p.status}</span>{" "}
        <span class="badge soft">{p.derivedStage}</span>
        {p.importance && <span class="muted small"> · {p.importance}</span>}
      </summary>
      <p>{p.summary}</p>
      <h4>{t("plot.beats")}</h4>
      {detail.data?.beats?.length ? (
        <ol>
          {detail.data.beats.map((b) => (
            <li key={b.id}>
              <span class="badge soft">{b.kind}</span> {b.scene.title}{" "}
              <span class="muted small">({b.state})</span>
              {b.note && <span class="muted"> — {b.note}</span>}
            </li>
          ))}
        </ol>
      ) : (
        <p class="muted small">{detail.loading ? t("common.loading") : t("plot.none")}</p>
      )}
    </details>
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
        <span class="count">
          {c.scenes} {t("plot.scenes")}
        </span>
      </a>
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
            <ul class="tree">
              {tr.phases.map((p) => (
                <li key={p.id}>
                  <details open>
                    <summary>{p.title}</summary>
                    <ul class="tree">
                      {p.threads.map((th) => (
                        <li key={th.id} class="leaf">
                          {th.isMain ? "★ " : ""}
                          {th.title}{" "}
                          <span class="count">
                            {th.scenes} {t("plot.scenes")}
                          </span>
                        </li>
                      ))}
                    </ul>
                  </details>
                </li>
              ))}
              {tr.ungroupedThreads.map((th) => (
                <li key={th.id} class="leaf">
                  {th.title}
                </li>
              ))}
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
          (promises.data?.promises.length ? (
            promises.data.promises.map((p) => <PromiseCard key={p.id} project={project} p={p} />)
          ) : (
            <p class="muted">{t("plot.none")}</p>
          ))}
        {tab === "decisions" &&
          (decisions.data?.decisions.length ? (
            decisions.data.decisions.map((d) => (
              <div key={d.id} class="card decision">
                <strong>{d.title}</strong> <span class="badge">{d.status}</span>
                <p>{d.question}</p>
                {d.conclusion && (
                  <p>
                    → {d.conclusion}
                    {d.reason && <span class="muted"> ({d.reason})</span>}
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
