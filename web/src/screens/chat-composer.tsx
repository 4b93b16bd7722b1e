// The chat's composer: the message box with an `@` popup (files, plot scenes, world subjects,
// attached to the message as context) and a `/` popup (the slash commands), both keyboard-driven.
import { useRef, useState } from "preact/hooks";
import { api, type Mention, type MentionCandidate } from "../api";
import { useI18n } from "../i18n";
import { type Completion, parseSlash, type RewindPointView, type Slash, slashCompletions } from "../slash";

/** A mention after `@`, up to the caret: what is typed so far. */
const MENTION_AT = /(?:^|\s)@([^\s@]{0,80})$/;

/** A mention picked for the message being written, with the label the popup showed. */
export interface Attached {
  mention: Mention;
  label: string;
}

const keyOf = (m: Mention) => JSON.stringify(m);

type Popup =
  | { kind: "mention"; at: number; options: MentionCandidate[] }
  | { kind: "slash"; options: Completion[] };

export function Composer({
  project,
  sessionId,
  running,
  onSend,
  onSlash,
  onCycleMode,
}: {
  project: string;
  sessionId: string;
  running: boolean;
  /** Send a message with its mentions; resolves true when it was taken (the composer then clears). */
  onSend: (text: string, attached: Attached[]) => Promise<boolean>;
  onSlash: (s: Slash) => Promise<void>;
  onCycleMode: () => void;
}) {
  const { t } = useI18n();
  const [draft, setDraft] = useState("");
  const [attached, setAttached] = useState<Attached[]>([]);
  const [popup, setPopup] = useState<Popup | null>(null);
  const [active, setActive] = useState(0);
  const box = useRef<HTMLTextAreaElement>(null);
  const asked = useRef(0);
  const points = useRef<RewindPointView[] | null>(null);

  const options = popup?.options ?? [];
  const open = options.length > 0;
  const listId = `composer-popup-${sessionId}`;

  const refresh = (text: string, caret: number) => {
    const n = ++asked.current;
    const before = text.slice(0, caret);
    const m = MENTION_AT.exec(before);
    if (m) {
      const at = caret - m[1]!.length - 1;
      api
        .mentions(project, m[1]!)
        .then((r) => {
          if (n !== asked.current) return;
          setPopup({ kind: "mention", at, options: r.candidates });
          setActive(0);
        })
        .catch(() => n === asked.current && setPopup(null));
      return;
    }
    if (text.startsWith("/rewind") && points.current === null) {
      points.current = [];
      api
        .rewindPoints(sessionId)
        .then((r) => {
          points.current = r.points;
          if (n === asked.current) setPopup({ kind: "slash", options: slashCompletions(text, r.points) });
        })
        .catch(() => {
          points.current = null;
        });
    }
    setPopup(
      text.startsWith("/") ? { kind: "slash", options: slashCompletions(text, points.current ?? []) } : null,
    );
    setActive(0);
  };

  const pick = (i: number) => {
    const el = box.current;
    if (!popup || !el) return;
    if (popup.kind === "mention") {
      const c = popup.options[i];
      if (!c) return;
      const caret = el.selectionStart ?? draft.length;
      const inserted = `@${c.label} `;
      const next = draft.slice(0, popup.at) + inserted + draft.slice(caret);
      setDraft(next);
      setAttached((a) => (a.some((x) => keyOf(x.mention) === keyOf(c.mention)) ? a : [...a, c]));
      setPopup(null);
      const at = popup.at + inserted.length;
      requestAnimationFrame(() => el.setSelectionRange(at, at));
    } else {
      const c = popup.options[i];
      if (!c) return;
      setDraft(c.value);
      refresh(c.value, c.value.length);
    }
    el.focus();
  };

  const submit = async () => {
    const text = draft.trim();
    if (!text) return;
    const slash = parseSlash(text);
    if (slash) {
      setDraft("");
      setPopup(null);
      points.current = null;
      await onSlash(slash);
      return;
    }
    if (await onSend(text, attached)) {
      setDraft("");
      setAttached([]);
      setPopup(null);
    }
  };

  const onKey = (e: KeyboardEvent) => {
    if (open && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
      e.preventDefault();
      const step = e.key === "ArrowDown" ? 1 : -1;
      setActive((a) => (a + step + options.length) % options.length);
    } else if (open && (e.key === "Enter" || e.key === "Tab") && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      pick(active);
    } else if (open && e.key === "Escape") {
      e.preventDefault();
      setPopup(null);
    } else if (e.key === "Tab" && e.shiftKey) {
      e.preventDefault();
      onCycleMode();
    } else if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void submit();
    }
  };

  const optionId = (i: number) => `${listId}-${i}`;
  return (
    <form
      class="composer-wrap"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {attached.length > 0 && (
        <ul class="mentions" aria-label={t("agent.attached")} data-testid="attached">
          {attached.map((a) => (
            <li key={keyOf(a.mention)} class="mention-chip">
              <span>{a.label}</span>
              <button
                type="button"
                class="link"
                aria-label={t("agent.detach", { label: a.label })}
                onClick={() => setAttached((all) => all.filter((x) => x !== a))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {open && (
        <div class="popup" role="listbox" id={listId} aria-label={t("agent.suggestions")} data-testid="popup">
          {options.map((o, i) => (
            // The textarea keeps the focus (aria-activedescendant names the option); a click picks.
            <div
              key={"mention" in o ? keyOf(o.mention) : o.value}
              id={optionId(i)}
              role="option"
              tabIndex={-1}
              aria-selected={i === active}
              class={i === active ? "active" : undefined}
              data-testid="popup-option"
              onMouseDown={(e) => {
                e.preventDefault();
                pick(i);
              }}
            >
              <span>{o.label}</span> <span class="muted small">{o.detail}</span>
            </div>
          ))}
        </div>
      )}
      <div class="composer">
        <textarea
          ref={box}
          value={draft}
          placeholder={t("agent.placeholder")}
          aria-label={t("agent.placeholder")}
          aria-autocomplete="list"
          aria-controls={open ? listId : undefined}
          aria-activedescendant={open ? optionId(active) : undefined}
          onInput={(e) => {
            const el = e.target as HTMLTextAreaElement;
            setDraft(el.value);
            refresh(el.value, el.selectionStart ?? el.value.length);
          }}
          onKeyDown={onKey}
          onBlur={() => setPopup(null)}
          rows={3}
          data-testid="composer"
        />
        <button type="submit" class="primary" disabled={!draft.trim()} data-testid="send">
          {running ? t("agent.steer") : t("agent.send")}
        </button>
      </div>
    </form>
  );
}
