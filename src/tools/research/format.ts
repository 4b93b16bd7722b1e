import {
  type BookResult,
  type Freshness,
  formatAge,
  itemChange,
  type Movement,
  type RankingsResult,
} from "../../research/index.js";
import type { RankingItem } from "../../research/shapes.js";

/** "2025-06-08 08:00 UTC". */
export function formatInstant(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A count the way Chinese platforms show it: 万 (10,000) and 亿 (100,000,000). */
export function formatCount(n: number): string {
  const trim = (x: number) => x.toFixed(1).replace(/\.0$/, "");
  if (n >= 1e8) return `${trim(n / 1e8)}亿`;
  if (n >= 1e4) return `${trim(n / 1e4)}万`;
  return String(Math.round(n));
}

function freshnessText(f: Freshness): string {
  return f.stale ? `stale: ${f.reasons.join("; ")}` : `fresh (collected ${formatAge(f.ageHours)} ago)`;
}

function changeMark(m: Movement | null, bookId: string): string {
  if (!m) return "";
  const c = itemChange(m, bookId);
  if (c.kind === "new") return "  new";
  if (c.kind === "same") return "  =";
  return c.change > 0 ? `  ▲${c.change} (was #${c.from})` : `  ▼${-c.change} (was #${c.from})`;
}

function metricsText(item: RankingItem): string {
  const m = item.metrics;
  const parts: string[] = [];
  if (m.creationStatus) parts.push(m.creationStatus);
  if (typeof m.wordCount === "number") parts.push(`${formatCount(m.wordCount)}字`);
  if (typeof m.readCount === "number") parts.push(`${formatCount(m.readCount)} reads`);
  if (m.category) parts.push(m.category);
  if (m.lastChapterTitle) parts.push(`latest: ${m.lastChapterTitle}`);
  return parts.join(" · ");
}

function movementSummary(r: RankingsResult): string {
  const m = r.movement;
  if (!m) return "First stored snapshot of this board from this source: no movement to report yet.";
  const again = r.stored.added
    ? ""
    : " (the source has not collected the board again since the last request)";
  return `Movement since the snapshot of ${formatInstant(m.previousFetchedAt)}${again}: ${m.entered.length} new, ${m.climbed.length} up, ${m.fell.length} down, ${m.dropped.length} dropped, ${m.unchanged} unchanged.`;
}

/** The model's text for a ranking: header, freshness, movement, one line per book, dropped books. */
export function rankingsText(r: RankingsResult): string {
  const s = r.snapshot;
  const lines = [
    `${s.rankType} (${s.platform}/${s.rankTypeKey}) — cached snapshot collected ${formatInstant(s.fetchedAt)}; ${freshnessText(r.freshness)}`,
    `Source: ${r.source}`,
    movementSummary(r),
    "",
  ];
  const width = String(Math.max(0, ...s.items.map((i) => i.rank))).length;
  for (const item of [...s.items].sort((a, b) => a.rank - b.rank)) {
    const rank = String(item.rank).padStart(width);
    lines.push(
      `${rank}. ${item.title} — ${item.author || "(no author)"} (id ${item.externalBookId})${changeMark(r.movement, item.externalBookId)}`,
    );
    const metrics = metricsText(item);
    if (metrics) lines.push(`${" ".repeat(width + 2)}${metrics}`);
  }
  if (s.items.length === 0) lines.push("(the snapshot lists no books)");
  else if (s.items.every((i) => !metricsText(i))) {
    lines.push("", "This board carries no metrics: its numbers are unknown, not zero.");
  }
  if (r.movement?.dropped.length) {
    lines.push("", "Dropped since then:");
    for (const d of r.movement.dropped) {
      lines.push(`- ${d.title} — ${d.author || "(no author)"} (id ${d.bookId}, was #${d.rank})`);
    }
  }
  return lines.join("\n");
}

/** The model's text for a book: a stale warning first, then the facts, its ranks and description. */
export function bookText(r: BookResult): string {
  const d = r.detail;
  const lines: string[] = [];
  if (r.freshness.stale) lines.push(`⚠ Stale — may be out of date: ${r.freshness.reasons.join("; ")}.`);
  lines.push(`${d.title} — ${d.author || "(no author)"}`);
  const facts = [`${d.platform}, id ${d.externalBookId}`];
  if (d.bookStatus) facts.push(d.bookStatus);
  if (typeof d.wordCount === "number") facts.push(`${formatCount(d.wordCount)}字`);
  lines.push(facts.join(" · "));
  if (d.genres.length) lines.push(`Genres: ${d.genres.join(", ")}`);
  const expires = d.expiresAt ? ` · expires ${formatInstant(d.expiresAt)}` : "";
  lines.push(`Collected ${formatInstant(d.fetchedAt)} (${formatAge(r.freshness.ageHours)} ago)${expires}`);
  lines.push(`Source: ${r.source}`);
  if (d.sourceUrl) lines.push(`Page: ${d.sourceUrl}`);
  if (r.rankHistory.length) {
    const ranks = r.rankHistory.map(
      (p) => `${p.boardName} (${p.board}) #${p.rank} on ${formatInstant(p.fetchedAt).slice(0, 10)}`,
    );
    lines.push(`Ranks in stored snapshots: ${ranks.join("; ")}`);
  }
  lines.push("", "Description:", d.description.trim() || "(none)");
  return lines.join("\n");
}
