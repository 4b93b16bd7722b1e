import { promises as dns, type LookupAddress, type LookupOptions } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { buildConnector } from "undici";
import { parseAllowEntry } from "./allow-entry.js";

type Ip = ipaddr.IPv4 | ipaddr.IPv6;

/** Names for the address ranges the guard refuses (ipaddr.js range names → words for the model). */
const RANGE_WORDS: Record<string, string> = {
  loopback: "loopback",
  private: "private-network",
  uniqueLocal: "private-network (unique local)",
  linkLocal: "link-local",
  carrierGradeNat: "carrier-grade NAT",
  multicast: "multicast",
  unspecified: "unspecified",
  broadcast: "broadcast",
  ipv4Mapped: "IPv4-mapped IPv6",
};

/** Cloud instance-metadata endpoints (AWS, GCP, Azure, Alibaba, ECS tasks), named as such. */
const METADATA = new Set(["169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254"]);

/**
 * Why a connection to `address` is refused, or null for a public unicast address. Everything but
 * ipaddr.js's "unicast" range is refused (reserved, documentation, 6to4 and Teredo included);
 * NAT64 addresses (64:ff9b::/96) are judged by the IPv4 address they carry.
 */
export function refusalReason(address: string): string | null {
  let ip: Ip;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return "unparsable";
  }
  if (METADATA.has(ip.toString())) return "cloud metadata";
  const range = ip.range();
  if (ip.kind() === "ipv6" && range === "rfc6052") {
    const b = (ip as ipaddr.IPv6).toByteArray();
    return refusalReason(b.slice(12).join("."));
  }
  if (range === "unicast") return null;
  return RANGE_WORDS[range] ?? range;
}

/** `web.fetch.allowPrivate`, parsed: host names whose addresses may be private, and CIDR ranges. */
export class AllowList {
  private readonly hosts = new Set<string>();
  private readonly ranges: [Ip, number][] = [];

  constructor(entries: readonly string[]) {
    for (const e of entries) {
      const entry = parseAllowEntry(e);
      if (entry?.kind === "host") this.hosts.add(entry.host);
      else if (entry) this.ranges.push([ipaddr.parse(entry.address), entry.prefix]);
    }
  }

  /** True when connections to `hostname` may go to any address it resolves to. */
  allowsHost(hostname: string): boolean {
    return this.hosts.has(hostname.toLowerCase().replace(/\.$/, ""));
  }

  /** True when `address` lies in an allowed range (an IPv4-mapped address counts as its IPv4). */
  allowsAddress(address: string): boolean {
    if (!this.ranges.length || !ipaddr.isValid(address)) return false;
    const ip = ipaddr.parse(address);
    const forms: Ip[] = [ip];
    if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
      forms.push((ip as ipaddr.IPv6).toIPv4Address());
    }
    return this.ranges.some(([net, bits]) =>
      forms.some((f) => f.kind() === net.kind() && f.match(net, bits)),
    );
  }
}

/** A connection the guard refused before it was made. */
export class BlockedAddressError extends Error {
  readonly code = "ERR_NBOOK_BLOCKED_ADDRESS";
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(
      `${host === address ? host : `${host} resolves to ${address}, which`} is not a public address (${reason})`,
    );
    this.name = "BlockedAddressError";
  }
}

/** The guard's refusal inside an error an HTTP client wrapped it in (`fetch failed` and its causes). */
export function findBlocked(e: unknown): BlockedAddressError | null {
  for (let cur = e, depth = 0; cur && depth < 5; cur = (cur as { cause?: unknown }).cause, depth++) {
    if (cur instanceof BlockedAddressError) return cur;
  }
  return null;
}

/** Why connecting to `hostname` at `address` is refused under `allow`, or null when it may go ahead. */
export function connectionRefusal(hostname: string, address: string, allow: AllowList): string | null {
  if (allow.allowsHost(hostname) || allow.allowsAddress(address)) return null;
  return refusalReason(address);
}

/** Resolves a host name to its addresses; tests inject one that maps names to loopback. */
export type Resolver = (hostname: string, family: number) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname, family) =>
  dns.lookup(hostname, { all: true, family: family as 0 | 4 | 6 });

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for net/tls.connect that refuses the whole host when any address it resolves to is
 * refused (a name answering with one public and one private address is a rebinding attempt).
 */
export function guardedLookup(allow: AllowList, resolve: Resolver = systemResolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, Number(options.family ?? 0)).then(
      (addresses) => {
        if (!addresses.length) {
          const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          err.code = "ENOTFOUND";
          callback(err, "");
          return;
        }
        for (const a of addresses) {
          const why = connectionRefusal(hostname, a.address, allow);
          if (why) {
            callback(new BlockedAddressError(hostname, a.address, why), "");
            return;
          }
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ""),
    );
  };
}

export interface GuardOptions {
  allow: AllowList;
  /** Host-name resolution; the system resolver by default. */
  resolve?: Resolver;
  /** Connect timeout in milliseconds. */
  connectTimeoutMs?: number;
}

/**
 * An undici connector that checks every connection at the moment it is made: an IP-literal host
 * here (Node never calls `lookup` for a literal), a host name in the lookup above, for the first
 * request, every redirect hop and every new pooled connection alike.
 */
export function guardedConnector(opts: GuardOptions): buildConnector.connector {
  const base = buildConnector({
    timeout: opts.connectTimeoutMs ?? 10_000,
    lookup: guardedLookup(opts.allow, opts.resolve) as never,
  });
  return (options, callback) => {
    const host = options.hostname;
    if (isIP(host)) {
      const why = connectionRefusal(host, host, opts.allow);
      if (why) {
        callback(new BlockedAddressError(host, host, why), null);
        return;
      }
    }
    base(options, callback);
  };
}
