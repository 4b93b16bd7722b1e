import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import type { Hono } from "hono";
import { z } from "zod";
import { NbError } from "../core/errors.js";
import { parseOrThrow } from "../core/validate.js";
import type { Workspace } from "../workspace/workspace.js";
import { createServeApp } from "./app.js";
import { AuthGate, assertPasswordHash, isLoopbackHost } from "./auth.js";
import { ServeHub } from "./hub.js";

/** The `serve` section of the workspace's `.nbook/config.json`. */
const ServeConfigSchema = z
  .object({
    passwordHash: z.string().min(1).optional().describe("made by `nbook serve --hash-password`"),
    allowedHosts: z
      .array(z.string().regex(/^[A-Za-z0-9.-]+$/, "a host name"))
      .max(50)
      .optional()
      .describe("host names browsers may use besides loopback and this machine's addresses"),
  })
  .strict();
type ServeConfig = z.infer<typeof ServeConfigSchema>;

/** Read and check the `serve` section (absent = no password, no extra names). */
function readServeConfig(workspace: Workspace): ServeConfig {
  const raw = workspace.readConfig().serve ?? {};
  const config = parseOrThrow(ServeConfigSchema, raw, "serve section of .nbook/config.json");
  if (config.passwordHash) assertPasswordHash(config.passwordHash);
  return config;
}

/** How `nbook serve` runs. */
export interface ServeOptions {
  workspace: Workspace;
  host: string;
  port: number;
  script?: string;
  webRoot?: string;
  log?: (line: string) => void;
}

/** A running server. */
export interface ServeHandle {
  /** `http://host:port` */
  url: string;
  /** The URL that logs a browser in (works once). */
  loginUrl: string;
  app: Hono;
  hub: ServeHub;
  close(): Promise<void>;
}

/**
 * Start `nbook serve`: refuse a non-loopback address without a configured password, then listen.
 * The returned login URL carries the one-time token.
 */
export async function startServer(opts: ServeOptions): Promise<ServeHandle> {
  const config = readServeConfig(opts.workspace);
  if (!isLoopbackHost(opts.host) && !config.passwordHash) {
    throw new NbError(
      "config_error",
      `Refusing to serve on ${opts.host}: other machines could reach it. Set a password first: \`nbook serve --hash-password\` prints the "serve": {"passwordHash": …} to put in .nbook/config.json (or serve on 127.0.0.1).`,
    );
  }
  const hub = new ServeHub({ workspace: opts.workspace, script: opts.script, log: opts.log });
  const gate = new AuthGate({
    host: opts.host,
    port: opts.port,
    passwordHash: config.passwordHash ?? null,
    allowedHosts: config.allowedHosts,
  });
  const { app } = createServeApp({ hub, gate, webRoot: opts.webRoot });
  const server = createAdaptorServer({ fetch: app.fetch, hostname: opts.host }) as Server;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(opts.port, opts.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (e) {
    await hub.close();
    const err = e as NodeJS.ErrnoException;
    if (err.code === "EADDRINUSE")
      throw new NbError("conflict", `Port ${opts.port} is in use: pass --port <n> (or stop what uses it)`);
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  gate.setPort(port);
  // A wildcard address is shown as loopback: the link is for the browser on this machine.
  const wildcard = opts.host === "0.0.0.0" || opts.host === "::";
  const shown = wildcard ? "127.0.0.1" : opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  const url = `http://${shown}:${port}`;
  return {
    url,
    loginUrl: `${url}/login?token=${gate.loginToken}`,
    app,
    hub,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Open event streams and kept-alive connections would hold the server open.
      server.closeAllConnections();
      await hub.close();
      await closed;
    },
  };
}
