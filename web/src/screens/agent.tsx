import { useEffect, useRef, useState } from "preact/hooks";
import { api, type Mode, type SessionInfo, type TaskItem } from "../api";
import { applyEvent, type ChatItem, entriesToItems } from "../chat-items";
import { PreviewText } from "../diff-view";
import { useI18n } from "../i18n";
import { routeHash } from "../route";
import { subscribe } from "../sse";
import { useAsync } from "../use-async";

const MODES: Mode[] = ["normal", "discuss", "plan"];

/** The next mode in the Shift+Tab cycle. */
export function nextMode(m: Mode): Mode {
  return MODES[(MODES.indexOf(m) + 1) % MODES.length]!;
}

let localIds = 0;
const localId = () => `sent-${++localIds}`;

function SessionList({
  sessions,
  current,
  project,
}: {
  sessions: SessionInfo[];
  current: string;
  project: string;
}) {
  const { t } = useI18n();
  const children = (parent: string) => sessions.filter((s) => s.parentSessionId === parent);
  const known = new Set(sessions.map((s) => s.id));
  const roots = sessions.filter((s) => !s.parentSessionId || !known.has(s.parentSessionId));
  const render = (s: SessionInfo) => (
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

function ApprovalBubble({
  item,
  sessionId,
  onSettled,
}: {
  item: Extract<ChatItem, { kind: "approval" }>;
  sessionId: string;
  onSettled: () => void;
}) {
  const { t } = useI18n();
  const [reason, setReason] = useState("");
  const [answer, setAnswer] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const p = item.pending;
  const settle = async (r: { approved: boolean; reason?: string; answer?: string }) => {
    setBusy(true);
    setError(null);
    try {
      await api.settle(sessionId, p.approvalId, r);
      onSettled();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const isQuestion = p.kind === "user_input";
  return (
    <div class={`bubble approval${item.settled ? " settled" : ""}`} data-testid="approval" data-kind={p.kind}>
      <div class="bubble-head">
        <strong>
          {isQuestion
            ? t("agent.question")
            : p.kind === "switch_mode"
              ? t("agent.switchMode")
              : t("agent.approvalTitle")}
        </strong>
        <code class="small">{p.tool}</code>
        {item.settled && <span class="badge">{t("agent.settled")}</span>}
      </div>
      {item.settled ? (
        // Once settled, the preview folds away; the tool card below it shows what was done.
        <details>
          <summary class="muted small">{t("agent.preview")}</summary>
          <PreviewText text={p.preview} />
        </details>
      ) : (
        <PreviewText text={p.preview} />
      )}
      {!item.settled &&
        (isQuestion ? (
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              settle({ approved: true, answer });
            }}
          >
            <input
              class="grow"
              value={answer}
              aria-label={t("agent.answer")}
              onInput={(e) => setAnswer((e.target as HTMLInputElement).value)}
              data-testid="answer"
            />
            <button type="submit" class="primary" disabled={busy || !answer.trim()}>
              {t("agent.answer")}
            </button>
          </form>
        ) : (
          <div class="row">
            <button
              type="button"
              class="primary"
              disabled={busy}
              onClick={() => settle({ approved: true })}
              data-testid="approve"
            >
              {t("agent.approve")}
            </button>
            <input
              class="grow"
              placeholder={t("agent.reason")}
              aria-label={t("agent.reason")}
              value={reason}
              onInput={(e) => setReason((e.target as HTMLInputElement).value)}
            />
            <button
              type="button"
              class="danger"
              disabled={busy}
              onClick={() => settle({ approved: false, reason: reason.trim() || undefined })}
              data-testid="reject"
            >
              {t("agent.reject")}
            </button>
          </div>
        ))}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function ChatItemView({
  item,
  sessionId,
  reload,
}: {
  item: ChatItem;
  sessionId: string;
  reload: () => void;
}) {
  const { t } = useI18n();
  switch (item.kind) {
    case "user":
      return (
        <div class="bubble user">
          <div class="bubble-head muted small">{t("agent.you")}</div>
          <div class="text">{item.text}</div>
        </div>
      );
    case "assistant":
      return (
        <div class="bubble assistant" data-testid="assistant">
          <div class="text">{item.text}</div>
        </div>
      );
    case "tool":
      return (
        <div
          class={`tool-card${item.ok === undefined ? " running" : item.ok ? " ok" : " failed"}`}
          data-testid="tool-card"
        >
          <span class="tool-mark" aria-hidden="true">
            {item.ok === undefined ? "…" : item.ok ? "✓" : "✗"}
          </span>{" "}
          <span class="tool-summary">{item.call}</span>
          {item.result && <span class="muted"> → {item.result}</span>}
          {item.diff && (
            <details class="tool-diff">
              <summary>{t("agent.diff")}</summary>
              <PreviewText text={item.diff} />
            </details>
          )}
        </div>
      );
    case "approval":
      return <ApprovalBubble item={item} sessionId={sessionId} onSettled={reload} />;
    case "note":
      return (
        <div class="note muted small" data-testid="note">
          {item.text}
        </div>
      );
  }
}

function Chat({ sessionId }: { sessionId: string }) {
  const { t } = useI18n();
  const [items, setItems] = useState<ChatItem[]>([]);
  const [tasks, setTasks] = useState<TaskItem[]>([]);
  const [mode, setModeState] = useState<Mode>("normal");
  const [running, setRunning] = useState(false);
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<string | null>(null);
  const end = useRef<HTMLDivElement>(null);

  const reload = async () => {
    const tr = await api.transcript(sessionId);
    setItems(entriesToItems(tr.entries, tr.pending));
    setTasks(tr.tasks);
    setModeState(tr.session.mode);
    setRunning(tr.running);
  };

  useEffect(() => {
    setItems([]);
    // The transcript is the truth; live events only draw what happens until the next reload,
    // which a run's end and every settled approval trigger. It is read once the stream is open,
    // so nothing that happens in between is missed (the stream starts live, not from the past).
    return subscribe(
      `/api/sessions/${encodeURIComponent(sessionId)}/events`,
      (e) => {
        if (e.type === "run_start") setRunning(true);
        if (e.type === "task_list_changed") setTasks(e.tasks as TaskItem[]);
        if (e.type === "mode_changed") setModeState(e.to as Mode);
        if (e.type === "run_end" || e.type === "reset") {
          if (e.type === "run_end") setRunning(false);
          reload().catch(() => {});
        }
        setItems((items) => applyEvent(items, e));
      },
      (connected) => {
        if (connected) reload().catch((e: Error) => setError(e.message));
      },
    );
  }, [sessionId]);

  useEffect(() => end.current?.scrollIntoView({ block: "end" }), [items]);

  const changeMode = async (m: Mode) => {
    setError(null);
    try {
      const r = await api.setMode(sessionId, m);
      setModeState(r.mode);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const send = async () => {
    const text = draft.trim();
    if (!text) return;
    setError(null);
    try {
      await api.invoke(sessionId, running ? "steer" : "prompt", text);
      setDraft("");
      setItems((items) => [...items, { kind: "user", id: localId(), text }]);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.key === "Tab" && e.shiftKey) {
      e.preventDefault();
      changeMode(nextMode(mode));
    } else if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    }
  };

  return (
    <>
      <section class="content chat" aria-label={t("nav.agent")}>
        <div class="toolbar">
          <div class="tabs" role="toolbar" aria-label={t("agent.mode")} title={t("agent.modeHint")}>
            {MODES.map((m) => (
              <button
                key={m}
                type="button"
                aria-pressed={mode === m}
                onClick={() => changeMode(m)}
                data-testid={`mode-${m}`}
              >
                {t(`mode.${m}`)}
              </button>
            ))}
          </div>
          <span class="muted small">{t("agent.modeHint")}</span>
          <span class="grow" />
          {running && (
            <span class="muted small" role="status">
              {t("agent.running")}
            </span>
          )}
          <button
            type="button"
            class="danger"
            disabled={!running}
            onClick={() => api.abort(sessionId)}
            data-testid="abort"
          >
            {t("agent.abort")}
          </button>
        </div>
        <div class="messages" aria-live="polite" data-testid="messages">
          {items.map((it) => (
            <ChatItemView
              key={it.id}
              item={it}
              sessionId={sessionId}
              reload={() => reload().catch(() => {})}
            />
          ))}
          <div ref={end} />
        </div>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <form
          class="composer"
          onSubmit={(e) => {
            e.preventDefault();
            send();
          }}
        >
          <textarea
            value={draft}
            placeholder={t("agent.placeholder")}
            aria-label={t("agent.placeholder")}
            onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
            onKeyDown={onKey}
            rows={3}
            data-testid="composer"
          />
          <button type="submit" class="primary" disabled={!draft.trim()} data-testid="send">
            {running ? t("agent.steer") : t("agent.send")}
          </button>
        </form>
      </section>
      <aside class="side right" aria-label={t("agent.tasks")}>
        <h2 class="side-title">{t("agent.tasks")}</h2>
        {tasks.length === 0 ? (
          <p class="muted small">{t("agent.noTasks")}</p>
        ) : (
          <ul class="tasks" data-testid="tasks">
            {tasks.map((task) => (
              <li key={task.id} class={`task ${task.status}`}>
                <span aria-hidden="true">
                  {task.status === "completed"
                    ? "☑"
                    : task.status === "in_progress"
                      ? "▶"
                      : task.status === "cancelled"
                        ? "☒"
                        : "☐"}
                </span>{" "}
                {task.title}
              </li>
            ))}
          </ul>
        )}
      </aside>
    </>
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
              {(profiles.data?.profiles ?? [{ key: "leader.default" }])
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
