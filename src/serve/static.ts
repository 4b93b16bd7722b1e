import { readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Context, Hono } from "hono";

/** dist/workbench/ of this checkout (the same from src/serve/ and dist/serve/). */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL("../../dist/workbench/", import.meta.url));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".ttf": "font/ttf",
  ".map": "application/json",
  ".txt": "text/plain; charset=utf-8",
};

/** Asset names: plain segments only, so a request can never leave dist/workbench/assets/. */
const ASSET_PATH = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/**
 * The workbench page's policy: everything from this server only (no external requests, no inline
 * script, so Markdown rendered into the page cannot run code), and never inside another site's frame
 * (a framed workbench could be clicked into approving something).
 */
const PAGE_SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>NeuroBook</title>
<p>The web workbench is not built. Run <code>npm run build</code> and reload.</p>`;

/** A file read once and again only when it changes on disk (index.html is served on every page load). */
class CachedFile {
  private cached: { stamp: string; body: Uint8Array } | null = null;

  constructor(private readonly path: string) {}

  read(): Uint8Array | null {
    const st = statSync(this.path, { throwIfNoEntry: false });
    if (!st?.isFile()) return null;
    const stamp = `${st.mtimeMs}:${st.size}`;
    if (this.cached?.stamp !== stamp) this.cached = { stamp, body: readFileSync(this.path) };
    return this.cached.body;
  }
}

/**
 * The workbench: `index.html` at `/` and for any other page path (the app's own routes survive a
 * reload), `/assets/*` from dist/workbench/assets/ with long caching (Vite puts hashes in the names).
 */
export function registerStatic(app: Hono, webRoot = DEFAULT_WEB_ROOT): void {
  const index = new CachedFile(join(webRoot, "index.html"));
  const assets = new Map<string, CachedFile>();

  const page = (c: Context) => {
    const body = index.read();
    if (!body) return c.html(NOT_BUILT, 503);
    return c.body(body as Uint8Array<ArrayBuffer>, 200, {
      "content-type": TYPES[".html"],
      "cache-control": "no-cache",
      ...PAGE_SECURITY_HEADERS,
    });
  };

  app.get("/assets/*", (c) => {
    const rel = c.req.path.slice("/assets/".length);
    if (!ASSET_PATH.test(rel)) return c.notFound();
    let file = assets.get(rel);
    if (!file) {
      file = new CachedFile(join(webRoot, "assets", ...rel.split("/")));
      if (assets.size < 1000) assets.set(rel, file);
    }
    const body = file.read();
    if (!body) return c.notFound();
    return c.body(body as Uint8Array<ArrayBuffer>, 200, {
      "content-type": TYPES[extname(rel).toLowerCase()] ?? "application/octet-stream",
      "cache-control": "public, max-age=31536000, immutable",
      "x-content-type-options": "nosniff",
    });
  });

  app.get("*", (c) => {
    if (c.req.path.startsWith("/api/") || c.req.path === "/login") return c.notFound();
    return page(c);
  });
}
