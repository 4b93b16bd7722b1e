import type { SearchHit } from "./types.js";

/** A domain as the model may write it (`https://www.Example.com/x`, `*.example.com`) → `example.com`. */
export function normalizeDomain(text: string): string {
  let d = text.trim().toLowerCase();
  d = d.replace(/^[a-z][a-z0-9+.-]*:\/\//, "");
  d = d.replace(/[/?#].*$/, "").replace(/:\d+$/, "");
  d = d
    .replace(/^\*\./, "")
    .replace(/^www\./, "")
    .replace(/\.$/, "");
  return d;
}

/** The host of a result URL without `www.`, or null when it is not a URL. */
function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname
      .toLowerCase()
      .replace(/^www\./, "")
      .replace(/\.$/, "");
  } catch {
    return null;
  }
}

/** True when `host` is `domain` or one of its subdomains. */
export function onDomain(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** Keep hits on an allowed domain (when any are given) and on no blocked one. */
export function filterByDomain(hits: SearchHit[], allowed: string[], blocked: string[]): SearchHit[] {
  return hits.filter((h) => {
    const host = hostOf(h.url);
    if (!host) return false;
    if (allowed.length && !allowed.some((d) => onDomain(host, d))) return false;
    return !blocked.some((d) => onDomain(host, d));
  });
}
