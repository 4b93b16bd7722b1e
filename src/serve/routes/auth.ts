import type { Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { z } from "zod";
import type { ApiRoutes } from "../api.js";
import { type AuthGate, SESSION_COOKIE } from "../auth.js";
import { clientKey, remoteAddress } from "../client-key.js";
import { HttpError } from "../errors.js";
import { AuthStateSchema, MeSchema } from "../responses.js";

function setSessionCookie(c: Context, id: string): void {
  // HttpOnly: no script reads it; SameSite=Strict: no other site's page sends it.
  setCookie(c, SESSION_COOKIE, id, { httpOnly: true, sameSite: "Strict", path: "/" });
}

const USED_TOKEN_PAGE = `<!doctype html><meta charset="utf-8"><title>NeuroBook</title>
<p>This login link is wrong or has already been used (each link works once).
Restart <code>nbook serve</code> for a new one, or log in with the password if one is configured.</p>`;

/** Login (one-time token or password), logout, and who is logged in. */
export function registerAuthRoutes(app: Hono, routes: ApiRoutes, gate: AuthGate): void {
  app.get("/login", (c) => {
    // The link opened again in a browser already logged in: no new session, no error.
    if (gate.hasSession(getCookie(c, SESSION_COOKIE))) return c.redirect("/", 303);
    const id = gate.redeemToken(c.req.query("token") ?? "");
    if (!id) return c.html(USED_TOKEN_PAGE, 401);
    setSessionCookie(c, id);
    return c.redirect("/", 303);
  });

  routes.add(
    {
      method: "post",
      path: "/api/auth/login",
      tag: "auth",
      response: AuthStateSchema,
      summary: "Log in with the password (serve.passwordHash); sets the session cookie",
      body: z.object({ password: z.string().min(1).max(1024) }).strict(),
    },
    (c, { body }) => {
      if (!gate.passwordLogin) {
        throw new HttpError(
          403,
          "not_allowed",
          "No password is configured: use the login link nbook serve printed",
        );
      }
      let id: string | null;
      try {
        id = gate.redeemPassword(body.password, clientKey(remoteAddress(c)));
      } catch (e) {
        throw new HttpError(429, "limit_exceeded", (e as Error).message);
      }
      if (!id) throw new HttpError(401, "not_allowed", "Wrong password");
      setSessionCookie(c, id);
      return c.json({ authenticated: true });
    },
  );

  routes.add(
    {
      method: "post",
      path: "/api/auth/logout",
      tag: "auth",
      response: AuthStateSchema,
      summary: "End this browser's session",
    },
    (c) => {
      gate.endSession(getCookie(c, SESSION_COOKIE));
      deleteCookie(c, SESSION_COOKIE, { path: "/" });
      return c.json({ authenticated: false });
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/auth/me",
      tag: "auth",
      response: MeSchema,
      summary: "Whether this browser is logged in",
    },
    (c) => c.json({ authenticated: true, passwordLogin: gate.passwordLogin }),
  );
}
