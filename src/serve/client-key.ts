import { isIPv4, isIPv6 } from "node:net";
import type { Context } from "hono";

/** The 8 groups of an IPv6 address (an embedded IPv4 tail as two), or null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  if (!isIPv6(address)) return null;
  const parse = (part: string): number[] =>
    part === ""
      ? []
      : part.split(":").flatMap((g) => {
          if (!g.includes(".")) return [Number.parseInt(g, 16)];
          const [a, b, c, d] = g.split(".").map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head, tail] = address.includes("::") ? address.split("::") : [address, null];
  const front = parse(head);
  const back = tail === null ? [] : parse(tail);
  return [...front, ...new Array(8 - front.length - back.length).fill(0), ...back];
}

/**
 * Who a login attempt comes from, for counting wrong passwords: the remote address, as much of it
 * as a client cannot cheaply change. Every loopback address is one client (this machine: a local
 * process could pick any of 127.0.0.0/8); an IPv6 client is its /64 (one host picks freely inside
 * its own); an IPv4 client is its address. A proxy's clients are the proxy: forwarded-for headers
 * are anyone's to write. `in-process` for a request that came through no socket.
 */
export function clientKey(address: string | null | undefined): string {
  if (!address) return "in-process";
  const a = address.toLowerCase().replace(/%.*$/, "");
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a)?.[1] ?? a;
  if (isIPv4(v4)) return v4.startsWith("127.") ? "loopback" : v4;
  const groups = ipv6Groups(a);
  if (!groups) return a;
  if (groups.every((g, i) => g === (i === 7 ? 1 : 0))) return "loopback";
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

/** The remote address of the connection a request came on (none for in-process requests). */
export function remoteAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}
