// The chat of one session: streamed text, tool cards, approval and question bubbles, the mode
// switch (Shift+Tab), abort, and the task list beside it.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, type Entry, type Mode, type PendingView, type Task, type Transcript } from "../api";
import { applyEvent, type ChatItem, entriesToItems } from "../chat-items";
import { PreviewText } from "../diff-view";
import { useI18n } from "../i18n";
import { subscribe } from "../sse";
import { ContextPanel } from "./context-panel";

/** The session modes, in the order Shift+Tab cycles them. */
export const MODES: Mode[] = ["normal", "discuss", "plan"];

/** The next mode in the Shift+Tab cycle. */
export function nextMode(m: Mode): Mode {
  return MODES[(MODES.indexOf(m) + 1) % MODES.length]!;
}

let localIds = 0;
const localId = () => `sent-${++localIds}`;

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
        {item.settled && (
          <span class={`badge settled-${item.settled}`} data-testid="settled">
            {t(`agent.${item.settled}`)}
          </span>
        )}
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
    case "summary":
      return <SummaryNote text={item.text} />;
  }
}

/** Entries a chat page holds; older ones load as the reader scrolls up. */
const PAGE = 100;
/** How close to the top (px) the reader scrolls before the page before is loaded. */
const NEAR_TOP = 200;

/** Where the history was compacted: the whole summary, which is all the agent knows of what came before. */
function SummaryNote({ text }: { text: string }) {
  const { t } = useI18n();
  return (
    <details class="note small" data-testid="summary">
      <summary>{t("agent.summary")}</summary>
      <p class="pre">{text}</p>
    </details>
  );
}

/** One session's chat, with its task list beside it. */
export function Chat({ sessionId }: { sessionId: string }) {
  const { t } = useI18n();
  const [items, setItems] = useState<ChatItem[]>([]);
  const [tasks, setTasks] = useState<Task[]>([]);
  const [mode, setModeState] = useState<Mode>("normal");
  const [running, setRunning] = useState(false);
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [older, setOlder] = useState<string | null>(null);
  const end = useRef<HTMLDivElement>(null);
  // Bumped when a model call is counted or the history is compacted: the context panel reads again.
  const [calls, setCalls] = useState(0);
  const box = useRef<HTMLDivElement>(null);
  // The entries loaded so far: a window of the branch, from the oldest page read to the leaf.
  const loaded = useRef<{ entries: Entry[]; older: string | null; pending: PendingView | null }>({
    entries: [],
    older: null,
    pending: null,
  });
  // Set while older entries are prepended: the view then keeps its place instead of jumping down.
  const keepPlace = useRef<number | null>(null);
  const loadingOlder = useRef(false);

  const show = (tr: Transcript, entries: Entry[], olderCursor: string | null) => {
    loaded.current = { entries, older: olderCursor, pending: tr.pending };
    setItems(entriesToItems(entries, tr.pending));
    setOlder(olderCursor);
    setTasks(tr.tasks);
    setModeState(tr.session.mode);
    setRunning(tr.running);
  };

  // Reads overlap (a settled approval and the run's end each ask for one): only the latest asked
  // is shown, so an older answer arriving last cannot hide what happened since.
  const reads = useRef(0);
  // What arrived since the newest entry loaded, page by page; the newest page when nothing is
  // loaded yet or the leaf moved to another branch (409).
  const reload = async () => {
    const n = ++reads.current;
    const have = loaded.current;
    const last = have.entries[have.entries.length - 1];
    if (last) {
      try {
        let tr = await api.transcript(sessionId, { after: last.id, limit: PAGE * 5 });
        const fresh = [...tr.entries];
        while (tr.newer !== null) {
          tr = await api.transcript(sessionId, { after: tr.newer, limit: PAGE * 5 });
          fresh.push(...tr.entries);
        }
        // Older pages may have been prepended meanwhile: join what is loaded now.
        const now = loaded.current;
        if (n === reads.current) show(tr, now.entries.concat(fresh), now.older);
        return;
      } catch (e) {
        if (!(e instanceof ApiError && e.code === "conflict")) throw e;
      }
    }
    const tr = await api.transcript(sessionId, { limit: PAGE });
    if (n === reads.current) show(tr, tr.entries, tr.older);
  };

  const loadOlder = async () => {
    const have = loaded.current;
    if (have.older === null || loadingOlder.current) return;
    loadingOlder.current = true;
    try {
      const tr = await api.transcript(sessionId, { before: have.older, limit: PAGE });
      if (loaded.current !== have) return;
      keepPlace.current = (box.current?.scrollHeight ?? 0) - (box.current?.scrollTop ?? 0);
      const entries = tr.entries.concat(have.entries);
      loaded.current = { entries, older: tr.older, pending: have.pending };
      setItems(entriesToItems(entries, have.pending));
      setOlder(tr.older);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      loadingOlder.current = false;
    }
  };

  useEffect(() => {
    setItems([]);
    loaded.current = { entries: [], older: null, pending: null };
    // The transcript is the truth; live events only draw what happens until the next reload,
    // which a run's end and every settled approval trigger. It is read after subscribing (the
    // stream starts live, not from the past, so what happens meanwhile comes as events), and again
    // whenever the stream (re)connects. The server may hold back the stream's first bytes until it
    // has an event, so the first read does not wait for the stream to report itself open.
    const unsubscribe = subscribe(
      `/api/sessions/${encodeURIComponent(sessionId)}/events`,
      (e) => {
        if (e.type === "run_start") setRunning(true);
        if (e.type === "task_list_changed") setTasks(e.tasks as Task[]);
        if (e.type === "mode_changed") setModeState(e.to as Mode);
        if (e.type === "run_end" || e.type === "reset") {
          if (e.type === "run_end") setRunning(false);
          reload().catch(() => {});
        }
        if (e.type === "usage" || e.type === "run_end") setCalls((v) => v + 1);
        if (e.type === "compacted") {
          if (e.trigger === "auto")
            setItems((items) => [...items, { kind: "note", id: localId(), text: t("agent.compacted") }]);
          reload().catch(() => {});
          setCalls((v) => v + 1);
        }
        setItems((items) => applyEvent(items, e));
      },
      (connected) => {
        if (connected) reload().catch((e: Error) => setError(e.message));
      },
    );
    reload().catch((e: Error) => setError(e.message));
    return unsubscribe;
  }, [sessionId]);

  useLayoutEffect(() => {
    const el = box.current;
    if (keepPlace.current !== null && el) {
      el.scrollTop = el.scrollHeight - keepPlace.current;
      keepPlace.current = null;
    } else end.current?.scrollIntoView({ block: "end" });
  }, [items]);

  const onScroll = () => {
    if ((box.current?.scrollTop ?? 0) < NEAR_TOP) loadOlder();
  };

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
        <div class="messages" aria-live="polite" data-testid="messages" ref={box} onScroll={onScroll}>
          {older !== null && (
            <button type="button" class="link small" onClick={() => loadOlder()} data-testid="load-older">
              {t("agent.loadOlder")}
            </button>
          )}
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
        <ContextPanel sessionId={sessionId} version={calls} running={running} />
      </aside>
    </>
  );
}
