import { useEffect, useState } from "preact/hooks";
import { api, type Mode, type Session } from "../api";
import { useI18n } from "../i18n";
import { routeHash } from "../route";
import { subscribe } from "../sse";
import { useAsync } from "../use-async";
import { Chat, MODES } from "./agent-chat";

/** The profile offered before the list has loaded. */
const DEFAULT_PROFILES: { key: string; creation?: string; description?: string }[] = [
  { key: "leader.default" },
];

function SessionList({
  sessions,
  current,
  project,
}: {
  sessions: Session[];
  current: string;
  project: string;
}) {
  const { t } = useI18n();
  const children = (parent: string) => sessions.filter((s) => s.parentSessionId === parent);
  const known = new Set(sessions.map((s) => s.id));
  const roots = sessions.filter((s) => !s.parentSessionId || !known.has(s.parentSessionId));
  const render = (s: Session) => (
    <li key={s.id}>
      <a
        href={routeHash(project, "agent", s.id)}
        class={`session${s.id === current ? " selected" : ""}`}
        aria-current={s.id === current ? "true" : undefined}
      >
        <span class="session-title">{s.title || `#${s.id}`}</span>
        <span class="muted small">
          {s.profileKey} · {t(`mode.${s.mode}`)}
        </span>
      </a>
      {children(s.id).length > 0 && <ul class="tree">{children(s.id).map(render)}</ul>}
    </li>
  );
  return (
    <ul class="tree sessions" data-testid="sessions">
      {roots.map(render)}
    </ul>
  );
}

/** Sessions of the project, a streaming chat with approvals and questions, and the task list. */
export function AgentScreen({ project, sessionId }: { project: string; sessionId: string }) {
  const { t } = useI18n();
  const sessions = useAsync(() => api.sessions(project), [project, sessionId]);
  // New sessions (a collaboration's children too) and status changes reach the list as they happen.
  useEffect(
    () =>
      subscribe("/api/events", (e) => {
        if (e.type === "reset") sessions.reload();
        else if (e.type === "session_created" || e.type === "session_status") {
          const p = e.type === "session_created" ? (e.session as { project?: string }).project : e.project;
          if (p === project) sessions.reload();
        }
      }),
    [project],
  );
  const profiles = useAsync(() => api.profiles(project), [project]);
  const models = useAsync(() => api.models(project), [project]);
  const [profile, setProfile] = useState("leader.default");
  const [mode, setMode] = useState<Mode>("normal");
  // "" is the profile's own model (config or profile default); otherwise a configured model ref.
  const [model, setModel] = useState("");
  const refs = (models.data?.providers ?? []).flatMap((p) =>
    p.models.map((m) => ({ ref: m.ref, missing: p.key === "missing" ? p.apiKeyEnv : undefined })),
  );
  const profileModel = models.data?.profiles.find((p) => p.profile === profile)?.ref;
  const [error, setError] = useState<string | null>(null);

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const r = await api.createSession(project, { profile, mode, ...(model ? { model } : {}) });
      location.hash = routeHash(project, "agent", r.session.id);
    } catch (err) {
      setError((err as Error).message);
    }
  };

  return (
    <div class="split three">
      <aside class="side" aria-label={t("agent.sessions")}>
        <h2 class="side-title">{t("agent.sessions")}</h2>
        <form class="new-session" onSubmit={create}>
          <label>
            {t("agent.profile")}
            <select
              value={profile}
              onChange={(e) => setProfile((e.target as HTMLSelectElement).value)}
              data-testid="new-profile"
            >
              {(profiles.data?.profiles ?? DEFAULT_PROFILES)
                .filter((p) => p.creation !== "system_only")
                .map((p) => (
                  <option key={p.key} value={p.key} title={p.description}>
                    {p.key}
                  </option>
                ))}
            </select>
          </label>
          {refs.length > 0 && (
            <label>
              {t("agent.model")}
              <select
                value={model}
                onChange={(e) => setModel((e.target as HTMLSelectElement).value)}
                data-testid="new-model"
              >
                <option value="">
                  {profileModel ? t("agent.profileModel", { ref: profileModel }) : t("agent.defaultModel")}
                </option>
                {refs.map((r) => (
                  <option key={r.ref} value={r.ref}>
                    {r.missing ? t("agent.keyMissing", { ref: r.ref, env: r.missing }) : r.ref}
                  </option>
                ))}
              </select>
            </label>
          )}
          <label>
            {t("agent.mode")}
            <select
              value={mode}
              onChange={(e) => setMode((e.target as HTMLSelectElement).value as Mode)}
              data-testid="new-mode"
            >
              {MODES.map((m) => (
                <option key={m} value={m}>
                  {t(`mode.${m}`)}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="primary" data-testid="new-session">
            {t("agent.newSession")}
          </button>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
        </form>
        {sessions.data && (
          <SessionList sessions={sessions.data.sessions} current={sessionId} project={project} />
        )}
      </aside>
      {sessionId ? (
        <Chat key={sessionId} sessionId={sessionId} />
      ) : (
        <section class="content">
          <p class="muted center">{t("agent.noSession")}</p>
        </section>
      )}
    </div>
  );
}
