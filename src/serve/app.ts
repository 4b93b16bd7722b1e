import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import { ApiRoutes } from "./api.js";
import type { AuthGate } from "./auth.js";
import { SESSION_COOKIE } from "./auth.js";
import { errorBody, errorResponse, HttpError } from "./errors.js";
import type { ServeHub } from "./hub.js";
import { openApiDocument } from "./openapi.js";
import { registerAuthRoutes } from "./routes/auth.js";
import { registerCatalogRoutes } from "./routes/catalog.js";
import { registerExportRoutes } from "./routes/export.js";
import { registerFileRoutes } from "./routes/files.js";
import { registerHistoryRoutes } from "./routes/history.js";
import { registerImportRoutes } from "./routes/import.js";
import { registerJobRoutes } from "./routes/jobs.js";
import { registerPlotRoutes } from "./routes/plot.js";
import { registerProjectRoutes } from "./routes/projects.js";
import { registerSearchRoutes } from "./routes/search.js";
import { registerSessionRoutes } from "./routes/sessions.js";
import { registerSettingsRoutes } from "./routes/settings.js";
import { registerPlotViewRoutes } from "./routes/plot-views.js";
import { registerUsageRoutes } from "./routes/usage.js";
import { registerWorkflowRoutes } from "./routes/workflows.js";
import { registerWorldRoutes } from "./routes/world.js";
import { registerStatic } from "./static.js";

/** What the app serves. */
export interface ServeAppOptions {
  hub: ServeHub;
  gate: AuthGate;
  /** The built workbench (default: dist/workbench/ next to the compiled sources). */
  webRoot?: string;
}

/** API paths reachable without a session. */
const PUBLIC_API = new Set(["/api/openapi.json", "/api/auth/login"]);

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The Host a request names (the header; the URL's host for in-process requests without one). */
function hostOf(req: Request, header: string | undefined): string {
  return header ?? new URL(req.url).host;
}

/**
 * The `nbook serve` app: Host check on every request, Origin check on every state-changing one,
 * the session cookie on every API route but login and the OpenAPI document, then the typed routes
 * and the workbench's static files.
 */
export function createServeApp(opts: ServeAppOptions): { app: Hono; routes: ApiRoutes } {
  const { hub, gate } = opts;
  const app = new Hono();
  const hidden = [hub.workspace.root, hub.workspace.realRoot];

  app.onError((e, c) => errorResponse(c, e, hidden));
  app.notFound((c) =>
    c.json(errorBody({ code: "not_found", message: `No route ${c.req.method} ${c.req.path}` }), 404),
  );

  app.use("*", async (c, next) => {
    const host = hostOf(c.req.raw, c.req.header("host"));
    if (!gate.hostAllowed(host)) {
      throw new HttpError(403, "not_allowed", `Host ${host.slice(0, 100)} is not this server`);
    }
    if (STATE_CHANGING.has(c.req.method) && !gate.originAllowed(c.req.header("origin"), host)) {
      throw new HttpError(
        403,
        "not_allowed",
        `Cross-origin request refused: a ${c.req.method} must come from http://${host}`,
      );
    }
    if (c.req.path.startsWith("/api/") && !PUBLIC_API.has(c.req.path)) {
      if (!gate.hasSession(getCookie(c, SESSION_COOKIE))) {
        throw new HttpError(
          401,
          "not_allowed",
          "Not logged in: open the login link nbook serve printed (it works once), or log in with the password",
        );
      }
    }
    await next();
    // The API's answers are the user's manuscript and sessions: never kept in a browser cache.
    if (c.req.path.startsWith("/api/") && !c.res.headers.has("cache-control")) {
      c.res.headers.set("cache-control", "no-store");
    }
  });

  const routes = new ApiRoutes(app);
  registerAuthRoutes(app, routes, gate);
  registerProjectRoutes(routes, hub);
  registerImportRoutes(routes, hub);
  registerExportRoutes(routes, hub);
  registerFileRoutes(routes, hub);
  registerSearchRoutes(routes, hub);
  registerSessionRoutes(routes, hub);
  registerUsageRoutes(routes, hub);
  registerWorldRoutes(routes, hub);
  registerPlotRoutes(routes, hub);
  registerPlotViewRoutes(routes, hub);
  registerHistoryRoutes(routes, hub);
  registerCatalogRoutes(routes, hub);
  registerSettingsRoutes(routes, hub);
  registerJobRoutes(routes, hub);
  registerWorkflowRoutes(routes, hub);
  // Built on first request: every route is registered by then.
  let doc: unknown = null;
  app.get("/api/openapi.json", (c) => {
    doc ??= openApiDocument(routes.specs);
    return c.json(doc);
  });
  registerStatic(app, opts.webRoot);
  return { app, routes };
}
