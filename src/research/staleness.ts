/**
 * When research data counts as stale (docs/research.md): the source itself says so (a service whose
 * refresh failed hands back its last good copy with `stale: true`), or the data was collected
 * longer ago than `research.staleAfterHours` (default 24 h) — whatever the source says.
 */
export const DEFAULT_STALE_AFTER_HOURS = 24;

export interface Freshness {
  /** Hours since the source collected the data (0 for a time in the future: a skewed clock). */
  ageHours: number;
  stale: boolean;
  /** Why it is stale, one sentence each; empty when it is fresh. */
  reasons: string[];
}

/** How fresh data collected at `fetchedAt` is at `now`. */
export function freshness(
  fetchedAt: string,
  now: Date,
  staleAfterHours: number,
  markedStale = false,
): Freshness {
  const ageHours = Math.max(0, (now.getTime() - Date.parse(fetchedAt)) / 3_600_000);
  const reasons: string[] = [];
  if (markedStale) reasons.push("the source marked it stale: its last refresh failed");
  if (ageHours > staleAfterHours) {
    reasons.push(
      `it was collected ${formatAge(ageHours)} ago, longer than ${formatHours(staleAfterHours)} (research.staleAfterHours)`,
    );
  }
  return { ageHours, stale: reasons.length > 0, reasons };
}

/** "40 minutes", "5 hours", "12 days". */
export function formatAge(hours: number): string {
  if (hours < 1) {
    const m = Math.round(hours * 60);
    return `${m} minute${m === 1 ? "" : "s"}`;
  }
  if (hours < 48) {
    const h = Math.round(hours);
    return `${h} hour${h === 1 ? "" : "s"}`;
  }
  const d = Math.round(hours / 24);
  return `${d} days`;
}

function formatHours(h: number): string {
  return Number.isInteger(h) ? `${h} h` : `${h.toFixed(1)} h`;
}
