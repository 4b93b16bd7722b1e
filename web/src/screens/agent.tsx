import { useEffect, useState } from "preact/hooks";
import { ApiError, api, type Mode, type Session } from "../api";
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
  ephemeral,
  current,
  project,
}: {
  sessions: Session[];
  ephemeral: ReadonlySet<string>;
  current: string;
  project: string;
}) {
  const { t } = useI18n();
  const [showEphemeral, setShowEphemeral] = useState(false);
  const [showArchived, setShowArchived] = useState(false);
  // The open session always shows, whatever the filters hide. Ephemeral agents are archived by
  // their run when it ends, so asking for them shows them archived or not.
  const shown = sessions.filter((s) =>
    s.id === current ? true : ephemeral.has(s.id) ? showEphemeral : showArchived || s.status !== "archived",
  );
  const children = (parent: string) => shown.filter((s) => s.parentSessionId === parent);
  const known = new Set(shown.map((s) => s.id));
  const roots = shown.filter((s) => !s.parentSessionId || !known.has(s.parentSessionId));
  const render = (s: Session) => (
    <li key={s.id}>
      <a
        href={routeHash(project, "agent", s.id)}
        class={`session${s.id === current ? " selected" : ""}`}
        aria-current={s.id === current ? "true" : undefined}
        data-testid="session-link"
        data-id={s.id}
      >
        <span class="session-title">{s.title || `#${s.id}`}</span>
        <span class="muted small">
          {s.profileKey} · {t(`mode.${s.mode}`)}
          {s.status === "archived" && ` · ${t("sessions.archived")}`}
          {ephemeral.has(s.id) && ` · ${t("jobs.ephemeral")}`}
        </span>
      </a>
      {children(s.id).length > 0 && <ul class="tree">{children(s.id).map(render)}</ul>}
    </li>
  );
  return (
    <>
      <div class="filters">
        <label class="check">
          <input
            type="checkbox"
            checked={showEphemeral}
            onChange={(e) => setShowEphemeral((e.target as HTMLInputElement).checked)}
            data-testid="show-ephemeral"
          />{" "}
          {t("sessions.showEphemeral")}
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={showArchived}
            onChange={(e) => setShowArchived((e.target as HTMLInputElement).checked)}
            data-testid="show-archived"
          />{" "}
          {t("sessions.showArchived")}
        </label>
      </div>
      <ul class="tree sessions" data-testid="sessions">
        {roots.map(render)}
      </ul>
    </>
  );
}

/** Rename, archive or restore, and delete (confirmed; the server refuses what would lose records) the open session. */
function SessionActions({
  session,
  project,
  onChanged,
}: {
  session: Session;
  project: string;
  onChanged: () => void;
}) {
  const { t } = useI18n();
  const [title, setTitle] = useState(session.title);
  const [error, setError] = useState<string | null>(null);
  const act = async (call: () => Promise<unknown>) => {
    setError(null);
    try {
      await call();
      onChanged();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const archived = session.status === "archived";
  return (
    <section class="session-actions" aria-label={t("sessions.actions")} data-testid="session-actions">
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          void act(() => api.renameSession(session.id, title));
        }}
      >
        <label class="grow">
          <span class="sr-only">{t("sessions.title")}</span>
          <input
            value={title}
            maxLength={200}
            onInput={(e) => setTitle((e.target as HTMLInputElement).value)}
            data-testid="session-title"
          />
        </label>
        <button type="submit" data-testid="rename-session">
          {t("sessions.rename")}
        </button>
      </form>
      <div class="row">
        <button
          type="button"
          onClick={() => act(() => api.archiveSession(session.id, !archived))}
          data-testid={archived ? "restore-session" : "archive-session"}
        >
          {archived ? t("sessions.restore") : t("sessions.archive")}
        </button>
        {archived && (
          <button
            type="button"
            class="danger"
            data-testid="delete-session"
            onClick={() => {
              if (!confirm(t("sessions.confirmDelete", { id: session.id }))) return;
              void act(async () => {
                await api.deleteSession(session.id);
                location.hash = routeHash(project, "agent");
              });
            }}
          >
            {t("sessions.delete")}
          </button>
        )}
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </section>
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
  const current = sessions.data?.sessions.find((s) => s.id === sessionId);

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const r = await api.createSession(project, { profile, mode, ...(model ? { model } : {}) });
      location.hash = routeHash(project, "agent", r.session.id);
    } catch (err) {
      // The server's no-model message names CLI flags; in the browser the way out is the config.
      setError(
        err instanceof ApiError && err.code === "config_error" && /^No model configured/.test(err.message)
          ? t("agent.noModel", { profile })
          : (err as Error).message,
      );
    }
  };
  // An error of one project or session does not follow the user elsewhere.
  useEffect(() => setError(null), [project, sessionId]);

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
        {current && (
          // Made anew for another session or a new title, so its field starts from that title; an
          // effect resetting it after the first paint could wipe what was typed in between.
          <SessionActions
            key={`${current.id}\n${current.title}`}
            session={current}
            project={project}
            onChanged={sessions.reload}
          />
        )}
        {sessions.data && (
          <SessionList
            sessions={sessions.data.sessions}
            ephemeral={new Set(sessions.data.ephemeral)}
            current={sessionId}
            project={project}
          />
        )}
      </aside>
      {sessionId ? (
        <Chat key={sessionId} project={project} sessionId={sessionId} />
      ) : (
        <section class="content">
          <p class="muted center">{t("agent.noSession")}</p>
        </section>
      )}
    </div>
  );
}
