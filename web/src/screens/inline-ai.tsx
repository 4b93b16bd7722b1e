// Inline AI beside the prose editor: the selected passage is sent to the inline editor with an
// action (or the author's own instruction); its alternatives stream in, each shown as a diff
// against the passage and editable before it is accepted. Accepting hands the text to the files
// screen, which puts it in the editor and saves it like any other save (so history records it).
import { useEffect, useRef, useState } from "preact/hooks";
import { parseAlternatives } from "../../../src/serve/inline-alternatives.js";
import { api, type InlineAction } from "../api";
import { WordDiff } from "../diff-view";
import { type MessageKey, useI18n } from "../i18n";
import { subscribe } from "../sse";

/** A selection of the editor's text. */
export interface Selection {
  from: number;
  to: number;
  text: string;
}

const ACTIONS: { action: Exclude<InlineAction, "instruction">; key: MessageKey }[] = [
  { action: "rewrite", key: "inline.rewrite" },
  { action: "expand", key: "inline.expand" },
  { action: "describe", key: "inline.describe" },
  { action: "shorten", key: "inline.shorten" },
];

interface Request {
  asked: Selection;
  sessionId: string;
  /** The reply as it streams. */
  streamed: string;
  /** The alternatives once the request ended (the author's edits to them included). */
  final: string[] | null;
  error: string | null;
}

interface Props {
  project: string;
  path: string;
  selection: Selection;
  /** Put `text` in place of the passage asked about and save; resolves to an error to show, or null. */
  onAccept: (asked: Selection, text: string) => Promise<string | null>;
}

export function InlineAi({ project, path, selection, onAccept }: Props) {
  const { t } = useI18n();
  const [instruction, setInstruction] = useState("");
  const [req, setReq] = useState<Request | null>(null);
  const [error, setError] = useState<string | null>(null);
  const live = useRef<string | null>(null);

  // The request's reply streams on its session; its end (or a reconnect) reads the alternatives.
  useEffect(() => {
    const id = req?.sessionId;
    if (!id) return;
    live.current = id;
    const settle = async () => {
      const s = await api.inlineState(project, id);
      if (s.running || live.current !== id) return;
      setReq((r) =>
        r && r.sessionId === id && r.final === null ? { ...r, final: s.alternatives, error: s.error } : r,
      );
    };
    return subscribe(
      `/api/sessions/${encodeURIComponent(id)}/events`,
      (e) => {
        if (e.type === "text_delta")
          setReq((r) => (r && r.sessionId === id ? { ...r, streamed: r.streamed + (e.text as string) } : r));
        if (e.type === "run_end" || e.type === "reset") settle().catch((err: Error) => setError(err.message));
      },
      (connected) => {
        if (connected) settle().catch((err: Error) => setError(err.message));
      },
    );
  }, [req?.sessionId]);

  const ask = async (action: InlineAction) => {
    setError(null);
    const asked = selection;
    try {
      const r = await api.inline(project, {
        path,
        selection: asked.text,
        action,
        ...(instruction.trim() ? { instruction: instruction.trim() } : {}),
      });
      setReq({ asked, sessionId: r.sessionId, streamed: "", final: null, error: null });
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const discard = () => {
    live.current = null;
    setReq(null);
    setError(null);
  };
  const accept = async (text: string) => {
    if (!req) return;
    const failed = await onAccept(req.asked, text);
    if (failed) setError(failed);
    else discard();
  };

  if (!req && !selection.text) return null;
  const streaming = req && req.final === null ? parseAlternatives(req.streamed) : null;
  return (
    <section class="inline-ai card" aria-label={t("inline.title")} data-testid="inline-panel">
      {!req ? (
        <div class="row wrap">
          <span class="small muted">{t("inline.title")}</span>
          {ACTIONS.map((a) => (
            <button
              key={a.action}
              type="button"
              onClick={() => ask(a.action)}
              data-testid={`inline-${a.action}`}
            >
              {t(a.key)}
            </button>
          ))}
          <form
            class="row grow"
            onSubmit={(e) => {
              e.preventDefault();
              ask("instruction");
            }}
          >
            <input
              class="grow"
              value={instruction}
              placeholder={t("inline.instruction")}
              aria-label={t("inline.instruction")}
              onInput={(e) => setInstruction((e.target as HTMLInputElement).value)}
              data-testid="inline-instruction"
            />
            <button type="submit" disabled={!instruction.trim()} data-testid="inline-ask">
              {t("inline.ask")}
            </button>
          </form>
        </div>
      ) : (
        <>
          <p class="small muted" role="status" data-testid="inline-status">
            {req.final === null
              ? t("inline.asking")
              : req.final.length
                ? t("inline.choose")
                : (req.error ?? t("inline.none"))}
          </p>
          <ol class="alternatives">
            {(
              req.final ?? [...(streaming?.alternatives ?? []), ...(streaming?.open ? [streaming.open] : [])]
            ).map((alt, i) => (
              <Alternative
                key={`${req.final ? "final" : "streaming"}-${i}`}
                n={i + 1}
                before={req.asked.text}
                text={alt}
                ready={req.final !== null}
                onAccept={accept}
              />
            ))}
          </ol>
          <button type="button" onClick={discard} data-testid="inline-discard">
            {t("inline.discard")}
          </button>
        </>
      )}
      {error && (
        <p class="error small" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

/** One alternative: its diff against the passage, an editable copy (merge by hand), Accept. */
function Alternative(props: {
  n: number;
  before: string;
  text: string;
  ready: boolean;
  onAccept: (text: string) => void;
}) {
  const { t } = useI18n();
  const [draft, setDraft] = useState(props.text);
  useEffect(() => setDraft(props.text), [props.text]);
  const label = t("inline.alternative", { n: props.n });
  return (
    <li class="alternative" aria-label={label} data-testid="inline-alternative">
      <WordDiff before={props.before} after={draft} />
      {props.ready && (
        <div class="row">
          <textarea
            class="grow"
            rows={Math.min(8, draft.split("\n").length + 1)}
            value={draft}
            aria-label={`${label}: ${t("inline.editHint")}`}
            title={t("inline.editHint")}
            onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
            data-testid="inline-draft"
          />
          <button
            type="button"
            class="primary"
            disabled={!draft.trim()}
            onClick={() => props.onAccept(draft)}
            data-testid="inline-accept"
          >
            {t("inline.accept")}
          </button>
        </div>
      )}
    </li>
  );
}
