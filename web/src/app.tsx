// The workbench shell: sign-in, the activity bar, the language switch and the screen the hash
// route names (route.ts), so reloading a tab or sharing a link lands on the same screen.
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { ApiError, api, type ProjectView } from "./api";
import { I18nContext, type Lang, langOf, type MessageKey, translate } from "./i18n";
import { parseHash, type Route, routeHash, type Screen } from "./route";
import { AgentScreen } from "./screens/agent";
import { Bookshelf } from "./screens/bookshelf";
import { ChangesScreen } from "./screens/changes";
import { FilesScreen } from "./screens/files";
import { GoalsScreen } from "./screens/goals";
import { JobsScreen } from "./screens/jobs";
import { Login } from "./screens/login";
import { PlotScreen } from "./screens/plot";
import { SettingsScreen } from "./screens/settings";
import { WorldScreen } from "./screens/world";
import { subscribe } from "./sse";

const LANG_KEY = "nbook.lang";

/** The workbench: sign-in, then the activity bar and the screen the address names. */
export function App() {
  const [auth, setAuth] = useState<"unknown" | "in" | "out">("unknown");
  const [route, setRoute] = useState<Route>(() => parseHash(location.hash));
  const [projects, setProjects] = useState<ProjectView[]>([]);
  const [chosenLang, setChosenLang] = useState<Lang | null>(
    () => localStorage.getItem(LANG_KEY) as Lang | null,
  );

  const loadProjects = useCallback(async () => {
    try {
      const r = await api.projects();
      setProjects(r.projects);
      setAuth("in");
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) setAuth("out");
      else throw e;
    }
  }, []);

  // The link `nbook serve` prints (`/login?token=…`) is exchanged by the server, which sets the
  // cookie and redirects here; this only asks whether that happened.
  useEffect(() => {
    loadProjects();
  }, [loadProjects]);

  // A project created in another tab (or by nbook in a terminal talking to this server) shows up.
  useEffect(() => {
    if (auth !== "in") return;
    return subscribe("/api/events", (e) => {
      if (e.type === "project_created" || e.type === "reset") loadProjects();
    });
  }, [auth, loadProjects]);

  useEffect(() => {
    const onHash = () => setRoute(parseHash(location.hash));
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, []);

  const project = projects.find((p) => p.name === route.project) ?? null;
  // The project screens stay one click away from the bookshelf: the last project opened.
  const [lastProject, setLastProject] = useState<string | null>(null);
  useEffect(() => {
    if (project) setLastProject(project.name);
  }, [project?.name]);
  const navProject = project ?? projects.find((p) => p.name === lastProject) ?? null;
  // Opening loads the project's agents on the server (the bookshelf's "open").
  useEffect(() => {
    if (project) api.openProject(project.name).catch(() => {});
  }, [project?.name]);
  const lang: Lang = chosenLang ?? langOf(project?.language);
  const i18n = useMemo(
    () => ({ lang, t: (k: MessageKey, v?: Record<string, string | number>) => translate(lang, k, v) }),
    [lang],
  );
  useEffect(() => {
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  }, [lang]);

  const switchLang = (l: Lang) => {
    localStorage.setItem(LANG_KEY, l);
    setChosenLang(l);
  };

  if (auth === "unknown") return <div class="center muted">{i18n.t("common.loading")}</div>;
  if (auth === "out")
    return (
      <I18nContext.Provider value={i18n}>
        <Login onDone={loadProjects} />
      </I18nContext.Provider>
    );

  const nav: { screen: Screen | "bookshelf"; key: MessageKey; icon: string }[] = [
    { screen: "bookshelf", key: "nav.bookshelf", icon: "⌂" },
    { screen: "files", key: "nav.files", icon: "✎" },
    { screen: "agent", key: "nav.agent", icon: "✦" },
    { screen: "world", key: "nav.world", icon: "◎" },
    { screen: "plot", key: "nav.plot", icon: "❖" },
    { screen: "goals", key: "nav.goals", icon: "◔" },
    { screen: "jobs", key: "nav.jobs", icon: "☰" },
    { screen: "changes", key: "nav.changes", icon: "↺" },
    { screen: "settings", key: "nav.settings", icon: "⚙" },
  ];

  return (
    <I18nContext.Provider value={i18n}>
      <a class="skip-link" href="#main" data-testid="skip-link">
        {i18n.t("nav.skip")}
      </a>
      <div class="shell">
        <nav class="activity" aria-label="NeuroBook">
          {nav.map((n) => {
            const disabled = n.screen !== "bookshelf" && !navProject;
            const href =
              n.screen === "bookshelf" ? "#/" : navProject ? routeHash(navProject.name, n.screen) : undefined;
            return (
              <a
                key={n.screen}
                href={disabled ? undefined : href}
                class={`activity-item${route.screen === n.screen ? " active" : ""}${disabled ? " disabled" : ""}`}
                aria-current={route.screen === n.screen ? "page" : undefined}
                aria-disabled={disabled}
                title={disabled ? i18n.t("nav.noProject") : i18n.t(n.key)}
                data-testid={`nav-${n.screen}`}
              >
                <span class="icon" aria-hidden="true">
                  {n.icon}
                </span>
                <span class="label">{i18n.t(n.key)}</span>
              </a>
            );
          })}
          <div class="activity-foot">
            <label class="lang">
              <span class="sr-only">{i18n.t("nav.language")}</span>
              <select
                value={lang}
                onChange={(e) => switchLang((e.target as HTMLSelectElement).value as Lang)}
                data-testid="lang"
              >
                <option value="en">EN</option>
                <option value="zh">中文</option>
              </select>
            </label>
          </div>
        </nav>
        <main class="main" id="main" tabIndex={-1}>
          {project && route.screen !== "bookshelf" && (
            <h1 class="project-bar">
              {project.title || project.name}
              <span class="muted">
                {" "}
                · {i18n.t(nav.find((n) => n.screen === route.screen)?.key ?? "nav.bookshelf")}
              </span>
            </h1>
          )}
          {route.screen === "bookshelf" || !project ? (
            <Bookshelf projects={projects} reload={loadProjects} />
          ) : route.screen === "files" ? (
            <FilesScreen project={project.name} path={route.rest} />
          ) : route.screen === "agent" ? (
            <AgentScreen project={project.name} sessionId={route.rest} />
          ) : route.screen === "world" ? (
            <WorldScreen project={project.name} subjectId={route.rest} />
          ) : route.screen === "plot" ? (
            <PlotScreen project={project.name} chapterId={route.rest} />
          ) : route.screen === "goals" ? (
            <GoalsScreen project={project.name} />
          ) : route.screen === "changes" ? (
            <ChangesScreen project={project.name} changeId={route.rest} />
          ) : route.screen === "settings" ? (
            <SettingsScreen project={project.name} />
          ) : (
            <JobsScreen project={project.name} item={route.rest} />
          )}
        </main>
      </div>
    </I18nContext.Provider>
  );
}
