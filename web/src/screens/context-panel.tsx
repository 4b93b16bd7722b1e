// The chat's "context and cost" panel: what the session and its project spent, what a model call
// was sent (sections with tokens, the canon brought in and why), and compacting on request.
import { useEffect, useState } from "preact/hooks";
import { api, type SessionContext, type UsageTotals } from "../api";
import { useI18n } from "../i18n";

const n = (x: number) => x.toLocaleString();

function money(u: UsageTotals): string {
  const parts: string[] = [];
  if (u.usd > 0) parts.push(`$${u.usd.toFixed(4)}`);
  if (u.cny > 0) parts.push(`¥${u.cny.toFixed(4)}`);
  if (u.unpriced > 0) parts.push(`${u.unpriced}×?`);
  return parts.join(" + ") || "$0.0000";
}

export function totals(u: UsageTotals): string {
  const cache =
    u.cacheReadTokens || u.cacheWriteTokens ? ` (${n(u.cacheReadTokens)}r/${n(u.cacheWriteTokens)}w)` : "";
  return `${u.calls} · ↑${n(u.inputTokens)}${cache} ↓${n(u.outputTokens)} · ${money(u)}`;
}

type Reason = NonNullable<
  NonNullable<SessionContext["call"]>["manifest"]["canon"]
>["included"][number]["reason"];

function reasonText(r: Reason): string {
  if (r.kind === "always") return "always";
  if (r.kind === "key") return `“${r.key}” · ${r.source}`;
  return `“${r.key}” · ${r.via} (${r.depth})`;
}

/** The panel of session `sessionId`; `version` changes when a run ends or a call is counted (reload). */
export function ContextPanel({
  sessionId,
  version,
  running,
}: {
  sessionId: string;
  version: number;
  running: boolean;
}) {
  const { t } = useI18n();
  const [call, setCall] = useState<number | undefined>(undefined);
  const [ctx, setCtx] = useState<SessionContext | null>(null);
  const [today, setToday] = useState<{ usage: UsageTotals; budget: string | null } | null>(null);
  const [focus, setFocus] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => setCall(undefined), [sessionId]);
  useEffect(() => {
    let live = true;
    Promise.all([api.context(sessionId, call), api.usage(sessionId)])
      .then(([c, u]) => {
        if (!live) return;
        setCtx(c);
        setToday({ usage: u.projectDay, budget: u.budget.message });
      })
      .catch((e: Error) => live && setNotice(e.message));
    return () => {
      live = false;
    };
  }, [sessionId, call, version]);

  const compact = async () => {
    setBusy(true);
    setNotice(null);
    try {
      const r = await api.compact(sessionId, focus.trim());
      setNotice(r.compacted ? null : t("context.compactedNothing"));
      if (r.compacted) setFocus("");
    } catch (e) {
      setNotice((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const c = ctx?.call ?? null;
  return (
    <section aria-label={t("context.title")} data-testid="context-panel">
      <h2 class="side-title">{t("context.title")}</h2>
      {ctx && (
        <p class="small" data-testid="usage-session">
          {t("context.session")}: {totals(ctx.usage)}
        </p>
      )}
      {today && (
        <p class="small muted" data-testid="usage-project">
          {t("context.projectToday")}: {totals(today.usage)}
        </p>
      )}
      {today?.budget && (
        <p class="small error" role="status" data-testid="budget">
          {today.budget}
        </p>
      )}
      {!c ? (
        <p class="muted small">{t("context.noCalls")}</p>
      ) : (
        <>
          <label class="small">
            {t("context.call")}{" "}
            <select
              value={String(c.seq)}
              onChange={(e) => setCall(Number((e.target as HTMLSelectElement).value))}
              data-testid="call-select"
            >
              {ctx?.calls.map((x) => (
                <option key={x.seq} value={String(x.seq)}>
                  #{x.seq} {x.model}
                </option>
              ))}
            </select>
          </label>
          <table class="small" data-testid="sections">
            <caption class="muted">
              {t("context.sections")} ({c.manifest.tokenizer})
            </caption>
            <tbody>
              {c.manifest.sections.map((s) => (
                <tr key={`${s.kind}-${s.label}`}>
                  <td>
                    {s.label}
                    {s.items !== undefined ? ` (${s.items})` : ""}
                  </td>
                  <td class="num">{n(s.tokens)}</td>
                </tr>
              ))}
              <tr>
                <th scope="row">{t("context.total")}</th>
                <td class="num">{n(c.manifest.totalTokens)}</td>
              </tr>
            </tbody>
          </table>
          <p class="small muted">
            {t("context.usage")}: ↑{n(c.usage.inputTokens)} ({n(c.usage.cacheReadTokens)}r/
            {n(c.usage.cacheWriteTokens)}w) ↓{n(c.usage.outputTokens)}
            {c.cost ? ` · ${c.cost.currency === "USD" ? "$" : "¥"}${c.cost.amount.toFixed(6)}` : ""}
          </p>
          {c.manifest.canon && (
            <>
              <h3 class="small">{t("context.canon")}</h3>
              {c.manifest.canon.included.length === 0 && c.manifest.canon.cut.length === 0 && (
                <p class="muted small">{t("context.noCanon")}</p>
              )}
              <ul class="small" data-testid="canon">
                {c.manifest.canon.included.map((e) => (
                  <li key={e.path}>
                    {e.title}{" "}
                    <span class="muted">
                      ({reasonText(e.reason)}, {n(e.tokens)})
                    </span>
                  </li>
                ))}
                {c.manifest.canon.cut.map((e) => (
                  <li key={e.path} class="muted">
                    <s>{e.title}</s> ({t("context.cut")})
                  </li>
                ))}
                {c.manifest.canon.problems.map((p) => (
                  <li key={p.path} class="error">
                    {p.path}:{p.line}: {p.message}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          compact();
        }}
      >
        <input
          value={focus}
          placeholder={t("context.focus")}
          aria-label={t("context.focus")}
          onInput={(e) => setFocus((e.target as HTMLInputElement).value)}
          data-testid="compact-focus"
        />
        <button type="submit" disabled={busy || running} data-testid="compact">
          {t("context.compact")}
        </button>
      </form>
      {notice && (
        <p class="small muted" role="status">
          {notice}
        </p>
      )}
    </section>
  );
}
