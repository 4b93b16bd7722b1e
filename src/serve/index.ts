export { hashPassword } from "./auth.js";
export { type ServeHandle, type ServeOptions, startServer } from "./server.js";
