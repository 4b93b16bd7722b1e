import type { Manifest } from "../harness/manifest.js";
import type { ModelCall, UsageTotals } from "../harness/store/index.js";
import { oneLine } from "../harness/store/index.js";

const n = (x: number): string => x.toLocaleString("en-US");

/** Money in each currency spent, or "no price" when nothing was priced. */
export function money(t: Pick<UsageTotals, "usd" | "cny" | "unpriced" | "calls">): string {
  const parts: string[] = [];
  if (t.usd > 0) parts.push(`$${t.usd.toFixed(4)}`);
  if (t.cny > 0) parts.push(`¥${t.cny.toFixed(4)}`);
  if (t.unpriced > 0) parts.push(t.unpriced === t.calls ? "no price" : `${t.unpriced} calls unpriced`);
  return parts.join(" + ") || "$0.0000";
}

/** One line of totals: calls, tokens in (with cache reads and writes), out, cost. */
export function usageLine(t: UsageTotals): string {
  const cache =
    t.cacheReadTokens || t.cacheWriteTokens
      ? ` (cache read ${n(t.cacheReadTokens)}, write ${n(t.cacheWriteTokens)})`
      : "";
  return `${t.calls} call${t.calls === 1 ? "" : "s"} · in ${n(t.inputTokens)}${cache} · out ${n(t.outputTokens)} · ${money(t)}`;
}

function callCost(c: ModelCall): string {
  if (!c.cost) return "no price";
  return `${c.cost.currency === "USD" ? "$" : "¥"}${c.cost.amount.toFixed(6)}`;
}

/** One line per call: number, model, tokens, cost. */
export function callLine(c: ModelCall): string {
  const u = c.usage;
  const cache =
    u.cacheReadTokens || u.cacheWriteTokens
      ? ` (cache ${n(u.cacheReadTokens)}r/${n(u.cacheWriteTokens)}w)`
      : "";
  const est = c.reported ? "" : " (estimated: no usage reported)";
  return `#${c.seq} ${c.createdAt.slice(0, 19).replace("T", " ")} ${c.model} ${c.purpose} · in ${n(u.inputTokens)}${cache} · out ${n(u.outputTokens)}${est} · ${callCost(c)}`;
}

function reason(r: NonNullable<Manifest["canon"]>["included"][number]["reason"]): string {
  if (r.kind === "always") return "always";
  if (r.kind === "key") return `key "${r.key}" in ${r.source}`;
  return `key "${r.key}" in ${r.via} (depth ${r.depth})`;
}

/** A call's manifest as text: the sections with their tokens, the canon and why, the provider's usage. */
export function manifestText(c: ModelCall): string {
  const m = c.manifest;
  const lines = [callLine(c), "", `Sections sent (tokens: ${m.tokenizer}):`];
  const width = Math.max(...m.sections.map((s) => s.label.length));
  for (const s of m.sections) {
    const items = s.items !== undefined ? `  (${s.items})` : "";
    lines.push(`  ${s.label.padEnd(width)}  ${n(s.tokens).padStart(8)}${items}`);
  }
  lines.push(`  ${"total".padEnd(width)}  ${n(m.totalTokens).padStart(8)}`);
  if (m.canon) {
    const k = m.canon;
    const scene = k.scene
      ? ` · story time of scene ${k.scene.sceneId} "${oneLine(k.scene.title, 60)}"${k.scene.time ? ` (${k.scene.time})` : ""}`
      : "";
    lines.push("", `Canon (budget ${n(k.budgetTokens)} tokens${scene}):`);
    if (!k.included.length && !k.cut.length) lines.push("  no entry matched");
    for (const e of k.included) lines.push(`  + ${e.path} (${n(e.tokens)}): ${reason(e.reason)}`);
    for (const e of k.cut)
      lines.push(`  - ${e.path} (${n(e.tokens)}): ${reason(e.reason)}, cut by the budget`);
    for (const p of k.problems) lines.push(`  ! ${p.path}:${p.line}: ${oneLine(p.message, 200)}`);
  }
  return `${lines.join("\n")}\n`;
}
