export { createServeApp, type ServeAppOptions } from "./app.js";
export { AuthGate, type AuthOptions, hashPassword, SESSION_COOKIE, verifyPassword } from "./auth.js";
export { type HubOptions, ServeHub } from "./hub.js";
export { readServeConfig, type ServeHandle, type ServeOptions, startServer } from "./server.js";
