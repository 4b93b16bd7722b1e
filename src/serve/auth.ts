import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";
import { networkInterfaces } from "node:os";
import { NbError } from "../core/errors.js";

/** Name of the browser session cookie. */
export const SESSION_COOKIE = "nbook_session";

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];

/** True for a host name or address that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function sameBytes(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const SCRYPT_PREFIX = "scrypt:";

/** A salted scrypt hash of a password, as `serve.passwordHash` stores it. */
export function hashPassword(password: string): string {
  if (password.length < 8) throw new NbError("invalid_input", "The password must have at least 8 characters");
  const salt = randomBytes(16);
  return `${SCRYPT_PREFIX}${salt.toString("base64url")}:${scryptSync(password, salt, 32).toString("base64url")}`;
}

/** True when `password` matches a hash made by hashPassword. */
export function verifyPassword(password: string, stored: string): boolean {
  const [salt, hash] = stored.startsWith(SCRYPT_PREFIX) ? stored.slice(SCRYPT_PREFIX.length).split(":") : [];
  if (!salt || !hash) return false;
  const got = scryptSync(password, Buffer.from(salt, "base64url"), 32).toString("base64url");
  return sameBytes(got, hash);
}

/** Throw `config_error` unless a stored hash has the hashPassword format. */
export function assertPasswordHash(stored: string): void {
  const [salt, hash] = stored.startsWith(SCRYPT_PREFIX) ? stored.slice(SCRYPT_PREFIX.length).split(":") : [];
  if (!salt || !hash) {
    throw new NbError(
      "config_error",
      "serve.passwordHash in .nbook/config.json is not a hash made by `nbook serve --hash-password`",
    );
  }
}

/** Browser sessions held at once; logging in beyond it ends the oldest. */
const MAX_SESSIONS = 1000;
/** Wrong passwords accepted from one client per window before its password logins pause. */
const MAX_FAILURES = 10;
const FAILURE_WINDOW_MS = 60_000;
/** Clients whose wrong passwords are remembered at once; past it, those with none recent go first, then the oldest. */
const MAX_TRACKED_CLIENTS = 10_000;

/** How the gate is set up. */
export interface AuthOptions {
  /** The address the server is bound to. */
  host: string;
  /** The port (0 until the server listens: then `setPort`). */
  port: number;
  /** `serve.passwordHash`, when a password is configured. */
  passwordHash?: string | null;
  /** Extra host names a browser may use (`serve.allowedHosts`). */
  allowedHosts?: string[];
  /** The one-time login token (default: a random one). */
  loginToken?: string;
  /** The clock password failures are counted with (tests move it). */
  now?: () => number;
}

/**
 * Who may talk to the server: the Host a request names, the Origin a state-changing request comes
 * from, the one-time login token, the password, and the browser sessions they opened.
 */
export class AuthGate {
  readonly loginToken: string;
  private tokenUsed = false;
  private port: number;
  private readonly names: string[];
  private readonly sessions = new Set<string>();
  /** Times of each client's recent wrong passwords (client: clientKey), least recently failed first. */
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly opts: AuthOptions) {
    this.loginToken = opts.loginToken ?? randomBytes(32).toString("base64url");
    this.port = opts.port;
    const names = new Set(LOOPBACK_NAMES);
    if (!isLoopbackHost(opts.host)) {
      // Bound beyond loopback: the machine's own addresses are fine (a rebinding page uses a name).
      if (opts.host !== "0.0.0.0" && opts.host !== "::") names.add(bracket(opts.host));
      else for (const a of Object.values(networkInterfaces()).flat()) if (a) names.add(bracket(a.address));
      for (const h of opts.allowedHosts ?? []) names.add(h.toLowerCase());
    }
    this.names = [...names];
  }

  /** The port requests must name, once the server listens. */
  setPort(port: number): void {
    this.port = port;
  }

  /** True when a password login is possible. */
  get passwordLogin(): boolean {
    return Boolean(this.opts.passwordHash);
  }

  /** True when `host` (a Host header, `name:port`) is this server under a name it answers to. */
  hostAllowed(host: string | undefined): boolean {
    if (!host) return false;
    const h = host.toLowerCase();
    return this.names.some((n) => h === `${n}:${this.port}`);
  }

  /** True when a state-changing request's Origin is this server as named by its Host. */
  originAllowed(origin: string | undefined, host: string): boolean {
    return origin !== undefined && origin.toLowerCase() === `http://${host.toLowerCase()}`;
  }

  /** Exchange the login token for a session id; a wrong or already used token gets null. */
  redeemToken(token: string): string | null {
    if (this.tokenUsed || !sameBytes(token, this.loginToken)) return null;
    this.tokenUsed = true;
    return this.openSession();
  }

  /**
   * Exchange the password for a session id; null when none is configured or it does not match.
   * After MAX_FAILURES wrong ones from `client` (a clientKey) within a minute, its every attempt is
   * refused (`limit_exceeded`) until the oldest of them is a minute old, so a password cannot be
   * guessed at speed; other clients — the owner's — log in as before.
   */
  redeemPassword(password: string, client: string): string | null {
    const hash = this.opts.passwordHash;
    if (!hash) return null;
    const now = (this.opts.now ?? Date.now)();
    const recent = (this.failures.get(client) ?? []).filter((t) => now - t < FAILURE_WINDOW_MS);
    if (recent.length >= MAX_FAILURES) {
      throw new NbError(
        "limit_exceeded",
        "Too many wrong passwords from this address: wait a minute and try again",
      );
    }
    if (!verifyPassword(password, hash)) {
      this.rememberFailures(client, [...recent, now], now);
      return null;
    }
    this.failures.delete(client);
    return this.openSession();
  }

  private rememberFailures(client: string, times: number[], now: number): void {
    // Re-inserted, so the Map's order is least recently failed first.
    this.failures.delete(client);
    this.failures.set(client, times);
    if (this.failures.size <= MAX_TRACKED_CLIENTS) return;
    for (const [key, t] of this.failures)
      if (now - t[t.length - 1] >= FAILURE_WINDOW_MS) this.failures.delete(key);
    while (this.failures.size > MAX_TRACKED_CLIENTS)
      this.failures.delete(this.failures.keys().next().value as string);
  }

  /** True for a session id this process handed out and has not ended. */
  hasSession(id: string | undefined): boolean {
    return id !== undefined && this.sessions.has(id);
  }

  /** End a browser session. */
  endSession(id: string | undefined): void {
    if (id) this.sessions.delete(id);
  }

  private openSession(): string {
    const id = randomBytes(32).toString("base64url");
    this.sessions.add(id);
    // A Set iterates in insertion order: the first is the oldest.
    if (this.sessions.size > MAX_SESSIONS)
      this.sessions.delete(this.sessions.values().next().value as string);
    return id;
  }
}

function bracket(address: string): string {
  return address.includes(":") ? `[${address.toLowerCase()}]` : address.toLowerCase();
}
