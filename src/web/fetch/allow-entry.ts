import { isIP } from "node:net";

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}[a-z0-9_])?)*$/i;

/** An entry of `web.fetch.allowPrivate`, split into its kind. */
export type AllowEntry =
  | { kind: "host"; host: string }
  | { kind: "cidr"; address: string; prefix: number; family: 4 | 6 };

/** Parse one allowlist entry: a host name, an IP address (one address) or a CIDR range; null if none. */
export function parseAllowEntry(entry: string): AllowEntry | null {
  const text = entry.trim().replace(/^\[(.*)\]$/, "$1");
  const slash = text.indexOf("/");
  const address = slash < 0 ? text : text.slice(0, slash);
  const family = isIP(address);
  if (family === 4 || family === 6) {
    const max = family === 4 ? 32 : 128;
    if (slash < 0) return { kind: "cidr", address, prefix: max, family };
    const bits = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return null;
    return { kind: "cidr", address, prefix: Number(bits), family };
  }
  if (slash >= 0 || !HOST_NAME.test(text) || /^[\d.]+$/.test(text)) return null;
  return { kind: "host", host: text.toLowerCase().replace(/\.$/, "") };
}

/** True when `entry` is a valid allowlist entry. */
export function isAllowEntry(entry: string): boolean {
  return parseAllowEntry(entry) !== null;
}
