/** The coarse windows search APIs offer, widest last. */
export type RecencyWindow = "day" | "week" | "month" | "year";

/** The narrowest window covering `days` (day ≤ 1, week ≤ 7, month ≤ 31, year otherwise). */
export function recencyWindow(days: number): RecencyWindow {
  if (days <= 1) return "day";
  if (days <= 7) return "week";
  if (days <= 31) return "month";
  return "year";
}

/** The date `days` before `now`, as YYYY-MM-DD (UTC). */
export function daysAgo(days: number, now = new Date()): string {
  return new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * False for a hit whose date is known and older than `days` (the provider's window is coarser
 * than the request); hits without a readable date are kept.
 */
export function isRecent(publishedAt: string | undefined, days: number, now = Date.now()): boolean {
  if (!publishedAt) return true;
  const t = Date.parse(publishedAt);
  return Number.isNaN(t) || now - t <= days * 86_400_000;
}
