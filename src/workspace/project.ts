import { realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_FILE, type ProjectMeta, readProjectMeta } from "./project-meta.js";
import type { Workspace } from "./workspace.js";

/** Something a project keeps open for its lifetime (a database connection, an index). */
export interface Closeable {
  close(): void;
}

/** One novel: a folder inside the workspace with project.yaml. */
export class Project {
  readonly name: string;
  readonly root: string;
  /** The root with symlinks resolved; containment checks compare against it. */
  readonly realRoot: string;
  readonly workspace: Workspace;
  private readonly resources = new Map<string, unknown>();
  private metaCache: { stamp: string; meta: ProjectMeta } | null = null;

  constructor(workspace: Workspace, name: string) {
    this.workspace = workspace;
    this.name = name;
    this.root = join(workspace.root, name);
    this.realRoot = realpathSync(this.root);
  }

  /** project.yaml, validated; re-read only when the file changes. */
  meta(): ProjectMeta {
    const st = statSync(join(this.root, PROJECT_FILE));
    const stamp = `${st.ino}:${st.mtimeMs}:${st.size}`;
    if (this.metaCache?.stamp !== stamp)
      this.metaCache = { stamp, meta: readProjectMeta(this.root, this.realRoot) };
    return this.metaCache.meta;
  }

  /** Path of one of the project's databases under `.nbook/`. */
  dbPath(name: "project" | "world"): string {
    return join(this.root, ".nbook", `${name}.sqlite`);
  }

  /**
   * A long-lived per-project resource, created on first use and closed with the project
   * (e.g. `project.resource("world", () => new WorldStore(...))`).
   */
  resource<T>(key: string, create: () => T): T {
    if (this.resources.has(key)) return this.resources.get(key) as T;
    const value = create();
    this.resources.set(key, value);
    return value;
  }

  /** Close every resource this project opened. */
  close(): void {
    for (const r of [...this.resources.values()].reverse()) {
      const c = r as Partial<Closeable>;
      if (typeof c?.close === "function") c.close();
    }
    this.resources.clear();
  }
}
