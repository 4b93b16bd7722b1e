// The workbench's address: `#/` is the bookshelf, `#/p/<project>/<screen>/<item>` a project's
// screen with an optional item (a file path, a session id, a subject id, a chapter id, a change id).

const SCREENS = ["files", "agent", "world", "plot", "goals", "jobs", "changes", "settings"] as const;
export type Screen = (typeof SCREENS)[number];

export interface Route {
  project: string | null;
  screen: Screen | "bookshelf";
  /** What follows the screen in the hash, e.g. a file path or a session id. */
  rest: string;
}

/** The route a location hash names; anything unknown is the bookshelf. */
export function parseHash(hash: string): Route {
  const m = /^#\/p\/([^/]+)\/(\w+)\/?(.*)$/.exec(hash);
  if (m && (SCREENS as readonly string[]).includes(m[2]!))
    return { project: decodeURIComponent(m[1]!), screen: m[2] as Screen, rest: decodeURIComponent(m[3]!) };
  return { project: null, screen: "bookshelf", rest: "" };
}

/** The hash for a project's screen. */
export function routeHash(project: string, screen: Screen, rest = ""): string {
  return `#/p/${encodeURIComponent(project)}/${screen}${rest ? `/${encodeURIComponent(rest)}` : ""}`;
}
