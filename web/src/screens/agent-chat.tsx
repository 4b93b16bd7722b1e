// The chat of one session: streamed text, tool cards, approval and question bubbles, errors with a
// retry, the mode switch (Shift+Tab), slash commands and `@`-mentions (the composer), abort, the
// usage line and the Changes link, and the task list and context panel beside it. The chat holds a
// window of the branch (chat-window.ts): older entries load as the reader scrolls up, newer ones
// as they scroll back down.
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import {
  ApiError,
  api,
  type Mode,
  type PendingView,
  type Task,
  type Transcript,
  type UsageTotals,
} from "../api";
import { applyEvent, type ChatItem, entriesToItems, questionChoices } from "../chat-items";
import { type ChatWindow, withNewer, withOlder } from "../chat-window";
import { PreviewText } from "../diff-view";
import { useI18n } from "../i18n";
import { routeHash } from "../route";
import type { Slash } from "../slash";
import { subscribe } from "../sse";
import { type Attached, Composer } from "./chat-composer";
import { ContextPanel, totals } from "./context-panel";

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
  const { choices, freeText } = questionChoices(p);
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
          <>
            {choices.length > 0 && (
              <fieldset class="row choices">
                <legend class="sr-only">{t("agent.choices")}</legend>
                {choices.map((c) => (
                  <button
                    key={c}
                    type="button"
                    disabled={busy}
                    onClick={() => settle({ approved: true, answer: c })}
                    data-testid="choice"
                  >
                    {c}
                  </button>
                ))}
              </fieldset>
            )}
            {freeText && (
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
            )}
          </>
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
  onRetry,
}: {
  item: ChatItem;
  sessionId: string;
  reload: () => void;
  /** Set on the last item when it is an error the session can run again from. */
  onRetry?: () => void;
}) {
  const { t } = useI18n();
  switch (item.kind) {
    case "user":
      return (
        <div class="bubble user">
          <div class="bubble-head muted small">{t("agent.you")}</div>
          <div class="text">{item.text}</div>
          {item.attached && (
            <ul class="mentions small" aria-label={t("agent.attached")} data-testid="sent-attached">
              {item.attached.map((a) => (
                <li key={`${a.kind}:${a.label}`} class="mention-chip">
                  {a.label}
                  {a.truncated && ` (${t("agent.cut")})`}
                </li>
              ))}
            </ul>
          )}
        </div>
      );
    case "error":
      return (
        <div class="chat-error" role="alert" data-testid="chat-error">
          <strong>{t("agent.error")}</strong> <span class="text">{item.text}</span>
          {onRetry && (
            <button type="button" onClick={onRetry} data-testid="retry">
              {t("agent.retry")}
            </button>
          )}
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

/** Entries a chat page reads; older ones load as the reader scrolls up. */
const PAGE = 100;
/** How close to the top or bottom (px) the reader scrolls before the next page is read. */
const NEAR_EDGE = 200;

/** What an undo or a rewind did, in a line. */
function undoText(t: ReturnType<typeof useI18n>["t"], r: Awaited<ReturnType<typeof api.undo>>): string {
  const parts: string[] = [];
  if (r.dropped) parts.push(t("agent.rewound", { entry: r.leafId ?? "—" }));
  if (r.revertChange) parts.push(t("agent.undone", { files: r.reverted.join(", "), change: r.revertChange }));
  return parts.join(" ") || t("agent.nothingToUndo");
}

/** One session's chat, with its task list and context panel beside it. */
export function Chat({ project, sessionId }: { project: string; sessionId: string }) {
  const { t } = useI18n();
  const [items, setItems] = useState<ChatItem[]>([]);
  const [tasks, setTasks] = useState<Task[]>([]);
  const [mode, setModeState] = useState<Mode>("normal");
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [edges, setEdges] = useState<{ older: boolean; newer: boolean }>({ older: false, newer: false });
  const [usage, setUsage] = useState<UsageTotals | null>(null);
  const [changes, setChanges] = useState<{ latest: string; n: number } | null>(null);
  // Below 1100px the side panel is folded away: the toolbar's button opens it over the chat.
  const [sideOpen, setSideOpen] = useState(false);
  const sideTitle = useRef<HTMLHeadingElement>(null);
  const sideButton = useRef<HTMLButtonElement>(null);
  // Bumped when a model call is counted or the history is compacted: the context panel reads again.
  const [calls, setCalls] = useState(0);
  const box = useRef<HTMLDivElement>(null);
  // The window of the branch loaded, and what the session waits on.
  const loaded = useRef<ChatWindow & { pending: PendingView | null }>({
    entries: [],
    older: null,
    newer: null,
    pending: null,
  });
  // Set while a page is added above or below: the item the reader was looking at, and where it was.
  const anchor = useRef<{ id: string; offset: number } | null>(null);
  const paging = useRef(false);

  const draw = (w: ChatWindow, pending: PendingView | null) => {
    loaded.current = { ...w, pending };
    setItems(entriesToItems(w.entries, pending));
    setEdges({ older: w.older !== null, newer: w.newer !== null });
  };

  const state = (tr: Transcript) => {
    setTasks(tr.tasks);
    setModeState(tr.session.mode);
    setRunning(tr.running);
  };

  // Reads overlap (a settled approval and the run's end each ask for one): only the latest asked
  // is shown, so an older answer arriving last cannot hide what happened since.
  const reads = useRef(0);
  // What arrived since the newest entry loaded, page by page; the newest page when nothing is
  // loaded yet, the leaf moved to another branch (409), or `latest` is asked for. A window the
  // reader scrolled away from the leaf stays where it is: only the session's state is read.
  const reload = async (latest = false) => {
    const n = ++reads.current;
    const have = loaded.current;
    const last = have.entries[have.entries.length - 1];
    if (!latest && have.newer !== null) {
      const tr = await api.transcript(sessionId, { limit: 1 });
      if (n !== reads.current) return;
      state(tr);
      draw(loaded.current, tr.pending);
      return;
    }
    if (last && !latest) {
      try {
        let tr = await api.transcript(sessionId, { after: last.id, limit: PAGE * 5 });
        const fresh = [...tr.entries];
        while (tr.newer !== null) {
          tr = await api.transcript(sessionId, { after: tr.newer, limit: PAGE * 5 });
          fresh.push(...tr.entries);
        }
        if (n !== reads.current) return;
        // Older pages may have been added meanwhile: join what is loaded now.
        state(tr);
        draw(withNewer(loaded.current, fresh, null), tr.pending);
        return;
      } catch (e) {
        if (!(e instanceof ApiError && e.code === "conflict")) throw e;
      }
    }
    const tr = await api.transcript(sessionId, { limit: PAGE });
    if (n !== reads.current) return;
    state(tr);
    draw({ entries: tr.entries, older: tr.older, newer: null }, tr.pending);
  };

  /** Remember the first item in view, so that adding a page keeps it where it is. */
  const holdPlace = () => {
    const el = box.current;
    if (!el) return;
    const top = el.getBoundingClientRect().top;
    for (const child of el.querySelectorAll<HTMLElement>("[data-item]")) {
      const r = child.getBoundingClientRect();
      if (r.bottom > top) {
        anchor.current = { id: child.dataset.item!, offset: r.top - top };
        return;
      }
    }
  };

  const page = async (dir: "older" | "newer") => {
    const have = loaded.current;
    const cursor = dir === "older" ? have.older : have.newer;
    if (cursor === null || paging.current) return;
    paging.current = true;
    try {
      const tr = await api.transcript(
        sessionId,
        dir === "older" ? { before: cursor, limit: PAGE } : { after: cursor, limit: PAGE },
      );
      if (loaded.current !== have) return;
      holdPlace();
      draw(
        dir === "older" ? withOlder(have, tr.entries, tr.older) : withNewer(have, tr.entries, tr.newer),
        have.pending,
      );
    } catch (e) {
      setError((e as Error).message);
    } finally {
      paging.current = false;
    }
  };

  const readUsage = () => {
    api
      .usage(sessionId)
      .then((u) => setUsage(u.session))
      .catch(() => {});
    api
      .changes(project, { session: sessionId, limit: 200 })
      .then((r) => setChanges(r.changes[0] ? { latest: r.changes[0].id, n: r.changes.length } : null))
      .catch(() => {});
  };
  useEffect(readUsage, [sessionId, calls]);

  useEffect(() => {
    setItems([]);
    loaded.current = { entries: [], older: null, newer: null, pending: null };
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
          if (e.trigger === "auto") setNotice(t("agent.compacted"));
          reload().catch(() => {});
          setCalls((v) => v + 1);
        }
        // Live events draw at the leaf: a window scrolled away from it shows them when it is back.
        if (loaded.current.newer === null) setItems((items) => applyEvent(items, e));
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
    const held = anchor.current;
    anchor.current = null;
    if (el && held) {
      const item = el.querySelector<HTMLElement>(`[data-item="${CSS.escape(held.id)}"]`);
      if (item) {
        el.scrollTop += item.getBoundingClientRect().top - el.getBoundingClientRect().top - held.offset;
        return;
      }
    }
    if (el && loaded.current.newer === null) el.scrollTop = el.scrollHeight;
  }, [items]);

  const onScroll = () => {
    const el = box.current;
    if (!el) return;
    if (el.scrollTop < NEAR_EDGE) void page("older");
    else if (el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_EDGE) void page("newer");
  };

  const changeMode = async (m: Mode) => {
    setError(null);
    try {
      const r = await api.setMode(sessionId, m);
      setModeState(r.mode);
      if (!r.changed) setNotice(t("agent.alreadyMode", { mode: t(`mode.${m}`) }));
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const send = async (text: string, picked: Attached[]): Promise<boolean> => {
    setError(null);
    setNotice(null);
    try {
      const mentions = picked.map((a) => a.mention);
      await api.invoke(sessionId, running ? "steer" : "prompt", text, mentions);
      // A message goes on at the leaf: a window scrolled away comes back to it.
      if (loaded.current.newer !== null) await reload(true);
      const attached = picked.map((a) => ({ kind: a.mention.kind, label: a.label, truncated: false }));
      setItems((items) => [
        ...items,
        { kind: "user", id: localId(), text, ...(attached.length ? { attached } : {}) },
      ]);
      return true;
    } catch (e) {
      setError((e as Error).message);
      return false;
    }
  };

  const slash = async (s: Slash) => {
    setError(null);
    setNotice(null);
    try {
      if (s.cmd === "usage") setError(s.text);
      else if (s.cmd === "mode") await changeMode(s.mode);
      else if (s.cmd === "compact") {
        const r = await api.compact(sessionId, s.focus);
        setNotice(r.compacted ? t("agent.compactDone") : t("context.compactedNothing"));
      } else if (s.cmd === "undo") setNotice(undoText(t, await api.undo(sessionId)));
      else if (s.to === null) {
        const { points } = await api.rewindPoints(sessionId);
        setNotice(
          points.length
            ? t("agent.rewindPoints", {
                points: points.map((p) => `#${p.entryId} “${p.message.slice(0, 40)}”`).join(", "),
              })
            : t("agent.noRewindPoints"),
        );
      } else {
        setNotice(undoText(t, await api.rewind(sessionId, s.to, s.scope)));
        await reload(true);
      }
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const retry = async () => {
    setError(null);
    try {
      await api.resume(sessionId);
      setRunning(true);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const last = items[items.length - 1];
  const canRetry = !running && !edges.newer && last?.kind === "error" && !loaded.current.pending;

  const toggleSide = () => {
    const next = !sideOpen;
    setSideOpen(next);
    if (next) requestAnimationFrame(() => sideTitle.current?.focus());
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
            ref={sideButton}
            aria-expanded={sideOpen}
            aria-controls={`chat-side-${sessionId}`}
            onClick={toggleSide}
            data-testid="show-context"
          >
            {t("agent.whatModelSaw")}
          </button>
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
          {edges.older && (
            <button type="button" class="link small" onClick={() => page("older")} data-testid="load-older">
              {t("agent.loadOlder")}
            </button>
          )}
          {items.map((it) => (
            <div key={it.id} class="chat-item" data-item={it.id}>
              <ChatItemView
                item={it}
                sessionId={sessionId}
                reload={() => reload().catch(() => {})}
                onRetry={canRetry && it === last ? retry : undefined}
              />
            </div>
          ))}
        </div>
        {/* Below the list, not in it: it stays where it is while pages load and the list moves. */}
        {edges.newer && (
          <button
            type="button"
            class="link small jump-latest"
            onClick={() => reload(true)}
            data-testid="jump-latest"
          >
            {t("agent.jumpLatest")}
          </button>
        )}
        <p class="usage-line small muted" data-testid="chat-usage">
          {usage && usage.calls > 0 ? `${t("context.session")}: ${totals(usage)}` : t("context.noCalls")}
          {" · "}
          {changes ? (
            <a href={routeHash(project, "changes", changes.latest)} data-testid="session-changes">
              {t("agent.sessionChanges", { n: changes.n >= 200 ? "200+" : changes.n })}
            </a>
          ) : (
            <a href={routeHash(project, "changes")} data-testid="session-changes">
              {t("agent.changesInbox")}
            </a>
          )}
        </p>
        {notice && (
          <p class="small notice" role="status" data-testid="chat-notice">
            {notice}
          </p>
        )}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <Composer
          project={project}
          sessionId={sessionId}
          running={running}
          onSend={send}
          onSlash={slash}
          onCycleMode={() => changeMode(nextMode(mode))}
        />
      </section>
      <aside
        class={`side right${sideOpen ? " open" : ""}`}
        aria-label={t("agent.tasks")}
        id={`chat-side-${sessionId}`}
        onKeyDown={(e) => {
          if (e.key === "Escape" && sideOpen) {
            setSideOpen(false);
            sideButton.current?.focus();
          }
        }}
      >
        <h2 class="side-title" tabIndex={-1} ref={sideTitle}>
          {t("agent.tasks")}
        </h2>
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
