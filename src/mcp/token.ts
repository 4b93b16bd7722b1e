import { NbError } from "../core/errors.js";

/** Shortest bearer token accepted: a guessable token would open every tool to any local process. */
export const MIN_TOKEN_LENGTH = 32;
/** Longest: a header past a few KiB is refused by HTTP servers anyway, and the estimate stays cheap. */
const MAX_TOKEN_LENGTH = 1024;
/**
 * Least estimated entropy accepted. Far beyond what guessing over loopback can try, and still
 * passed by every random token of the minimum length (32 hex digits estimate at 70 bits or more).
 */
export const MIN_TOKEN_BITS = 64;

// RFC 6750 b64token: what fits an Authorization header unchanged.
const TOKEN_CHARS = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Bits per character of the token's own character frequencies (Shannon). */
function bitsPerChar(codes: number[]): number {
  const counts = new Map<number, number>();
  for (const c of codes) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const k of counts.values()) h -= (k / codes.length) * Math.log2(k / codes.length);
  return h;
}

/** Length of the longest match of `codes[i…]` that starts before `i`. */
function earlierMatch(codes: number[], i: number): number {
  let best = 0;
  for (let j = 0; j < i; j++) {
    let l = 0;
    while (i + l < codes.length && codes[j + l] === codes[i + l]) l++;
    best = Math.max(best, l);
  }
  return best;
}

/**
 * A rough estimate of a token's entropy in bits: its characters' Shannon entropy times the number
 * of characters that are not predictable from what came before — a repeat of three or more earlier
 * characters (`k3Jqk3Jq`) counts as nothing, nor does a character continuing a run of equal steps
 * (`aaaa`, `abcd`, `1357`). It cannot see words, so it only catches tokens a pattern made.
 */
export function estimatedBits(token: string): number {
  const codes = [...token].map((c) => c.codePointAt(0) as number);
  let fresh = 0;
  for (let i = 0; i < codes.length; ) {
    const repeat = earlierMatch(codes, i);
    if (repeat >= 3) {
      i += repeat;
      continue;
    }
    const run = i >= 2 && codes[i] - codes[i - 1] === codes[i - 1] - codes[i - 2];
    if (!run) fresh++;
    i++;
  }
  return fresh * bitsPerChar(codes);
}

/** Refuse a user-chosen token that is short, too predictable or not header-safe (`invalid_input`, saying what to do). */
export function assertStrongToken(token: string): void {
  const fix = "unset NBOOK_MCP_TOKEN to get a random one, or make one with `openssl rand -hex 32`";
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new NbError(
      "invalid_input",
      `The MCP bearer token must be at least ${MIN_TOKEN_LENGTH} random characters (this one has ${token.length}): ${fix}`,
    );
  }
  if (token.length > MAX_TOKEN_LENGTH) {
    throw new NbError(
      "invalid_input",
      `The MCP bearer token may have at most ${MAX_TOKEN_LENGTH} characters (this one has ${token.length}): ${fix}`,
    );
  }
  if (!TOKEN_CHARS.test(token)) {
    throw new NbError(
      "invalid_input",
      `The MCP bearer token may hold only letters, digits and -._~+/ (with = padding at the end): ${fix}`,
    );
  }
  const bits = Math.floor(estimatedBits(token));
  if (bits < MIN_TOKEN_BITS) {
    throw new NbError(
      "invalid_input",
      `The MCP bearer token is too predictable (repeats, runs or few distinct characters: about ${bits} bits of entropy, at least ${MIN_TOKEN_BITS} needed): ${fix}`,
    );
  }
}
