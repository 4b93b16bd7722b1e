/** Most MCP HTTP sessions open at once, unless `--max-sessions` says otherwise. */
export const DEFAULT_MAX_SESSIONS = 32;

/** How long an MCP HTTP session may go without a request before it is closed. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
