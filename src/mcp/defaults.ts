/** Most MCP HTTP sessions open at once, unless `--max-sessions` says otherwise. */
export const DEFAULT_MAX_SESSIONS = 32;

/** How long an MCP HTTP session may go without a request before it is closed. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

/**
 * How long a session whose client closed its stream (the official client's close() sends no
 * DELETE) is kept for it to reconnect; the SDK client retries a dropped stream after a second.
 */
export const DEFAULT_DETACHED_GRACE_MS = 10_000;
