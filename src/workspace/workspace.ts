import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { writeFileAtomicSync } from "../core/atomic-write.js";
import { NbError, toErrorInfo } from "../core/errors.js";
import { writeProjectLayout } from "./layout.js";
import { Project } from "./project.js";
import { type ProjectMeta, readProjectMeta } from "./project-meta.js";
import { STARTER_CONFIG } from "./starter-config.js";

/** Project folder names: a slug that is safe in paths and addresses. */
export const PROJECT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const EXAMPLES_DIR = fileURLToPath(new URL("../../examples/", import.meta.url));

/** The sample novel's folder for a language (its world and plot seed is `<folder>.seed.yaml`). */
export function sampleNovelDir(language: "en" | "zh"): string {
  return join(EXAMPLES_DIR, language === "zh" ? "sample-novel-zh" : "sample-novel");
}

export interface CreateProjectOptions {
  title?: string;
  summary?: string;
  language?: "en" | "zh";
  /**
   * Copy the sample novel's files from examples/ (in the project's language) instead of starting
   * empty; `createSampleProject` (sample.ts) also seeds its world and plot.
   */
  sample?: boolean;
}

export interface ProjectInfo {
  name: string;
  title: string;
  language: string;
}

/** A Workspace Root: a folder of projects plus the `.nbook/` control area. */
export class Workspace {
  readonly root: string;
  readonly realRoot: string;
  private readonly open = new Map<string, Project>();

  private constructor(root: string) {
    this.root = root;
    this.realRoot = realpathSync(root);
  }

  /** Create (or re-open) a workspace at `dir`; a project folder cannot become one. */
  static init(dir: string): Workspace {
    const root = resolve(dir);
    assertNotProjectFolder(root, dir);
    for (const d of [
      ".nbook/agent/profiles",
      ".nbook/agent/skills",
      ".nbook/agent/workflows",
      ".nbook/cache",
    ]) {
      mkdirSync(join(root, d), { recursive: true });
    }
    const config = join(root, ".nbook", "config.json");
    if (!existsSync(config)) writeFileAtomicSync(config, `${JSON.stringify(STARTER_CONFIG, null, 2)}\n`);
    return new Workspace(root);
  }

  /** Open an existing workspace; `not_found` when `dir` has no `.nbook/` or is a project folder. */
  static open(dir: string): Workspace {
    const root = resolve(dir);
    if (!isDir(join(root, ".nbook"))) {
      throw new NbError(
        "not_found",
        `Not a NeuroBook workspace (no .nbook/ folder): ${dir}. Run \`nbook init <dir>\`.`,
      );
    }
    assertNotProjectFolder(root, dir);
    return new Workspace(root);
  }

  /** Find the workspace: an explicit dir, else NBOOK_WORKSPACE, else the nearest ancestor with `.nbook/`. */
  static discover(opts: { workspace?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Workspace {
    const explicit = opts.workspace ?? (opts.env ?? process.env).NBOOK_WORKSPACE;
    if (explicit) return Workspace.open(explicit);
    let dir = resolve(opts.cwd ?? process.cwd());
    for (;;) {
      // A project also has .nbook/; the workspace is the folder whose .nbook/ holds config.json.
      if (existsSync(join(dir, ".nbook", "config.json")) && !existsSync(join(dir, "project.yaml"))) {
        return new Workspace(dir);
      }
      const parent = dirname(dir);
      if (parent === dir) break;
      dir = parent;
    }
    throw new NbError(
      "not_found",
      "No NeuroBook workspace found. Pass --workspace <dir>, set NBOOK_WORKSPACE, or run inside a workspace (create one with `nbook init <dir>`).",
    );
  }

  get nbookDir(): string {
    return join(this.root, ".nbook");
  }

  /** Cache area for spilled outputs and other disposable data. */
  get cacheDir(): string {
    return join(this.root, ".nbook", "cache");
  }

  /** Raw workspace config (`.nbook/config.json`); later modules validate their own sections. */
  readConfig(): Record<string, unknown> {
    return readJsonObject(join(this.nbookDir, "config.json"));
  }

  /** True when `name` is a project folder of this workspace. */
  hasProject(name: string): boolean {
    return PROJECT_NAME.test(name) && existsSync(join(this.root, name, "project.yaml"));
  }

  /** All projects, sorted by name. */
  listProjects(): ProjectInfo[] {
    const out: ProjectInfo[] = [];
    for (const e of readdirSync(this.root, { withFileTypes: true })) {
      if (!e.isDirectory() || !this.hasProject(e.name)) continue;
      try {
        const m = readProjectMeta(join(this.root, e.name));
        out.push({ name: e.name, title: m.title, language: m.language });
      } catch (err) {
        // One broken project.yaml (a FIFO, a link out, bad YAML) is listed as such, not fatal to the list.
        out.push({ name: e.name, title: this.brokenTitle(err), language: "?" });
      }
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** What a project whose project.yaml cannot be read is called in a list: why, without host paths. */
  brokenTitle(err: unknown): string {
    return `(broken project.yaml: ${toErrorInfo(err, [this.root, this.realRoot]).message.split("\n")[0]})`;
  }

  /** Open a project (one instance per workspace object, so its resources are shared). */
  project(name: string): Project {
    const cached = this.open.get(name);
    if (cached) return cached;
    if (!this.hasProject(name))
      throw new NbError("not_found", `No project named "${name}" in this workspace`);
    const p = new Project(this, name);
    this.open.set(name, p);
    return p;
  }

  /** Create a project with the full layout (or a copy of the sample novel). */
  createProject(name: string, opts: CreateProjectOptions = {}): Project {
    if (!PROJECT_NAME.test(name)) {
      throw new NbError(
        "invalid_input",
        `Invalid project name "${name}": use letters, digits, ".", "_" or "-" (max 64, starting with a letter or digit)`,
        { fields: [{ pointer: "/name", message: "invalid project name" }] },
      );
    }
    const root = join(this.root, name);
    if (existsSync(root)) throw new NbError("conflict", `A file or folder named "${name}" already exists`);
    if (opts.sample) {
      cpSync(sampleNovelDir(opts.language ?? "en"), root, { recursive: true });
      const base = readProjectMeta(root);
      const meta: ProjectMeta = {
        ...base,
        title: opts.title ?? base.title,
        summary: opts.summary ?? base.summary,
        language: opts.language ?? base.language,
      };
      writeProjectLayout(root, meta, { keepExisting: true });
    } else {
      const meta: ProjectMeta = {
        title: opts.title ?? name,
        summary: opts.summary ?? "",
        language: opts.language ?? "en",
      };
      mkdirSync(root, { recursive: true });
      writeProjectLayout(root, meta);
    }
    return this.project(name);
  }

  /** The project folder `cwd` is in, if any. */
  projectAt(cwd: string): string | null {
    const rel = relative(this.realRoot, safeRealpath(resolve(cwd)));
    if (!rel || rel.startsWith("..") || isAbsolute(rel)) return null;
    const first = rel.split(sep)[0];
    return this.hasProject(first) ? first : null;
  }

  /** Close every open project. */
  close(): void {
    for (const p of this.open.values()) p.close();
    this.open.clear();
  }
}

function assertNotProjectFolder(root: string, dir: string): void {
  if (existsSync(join(root, "project.yaml"))) {
    throw new NbError(
      "invalid_input",
      `${dir} is a project folder, not a workspace: its workspace is the folder that holds it.`,
    );
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function safeRealpath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

function readJsonObject(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new NbError(
      "config_error",
      `${file.split(sep).slice(-2).join("/")} is not valid JSON: ${(e as Error).message}`,
    );
  }
  if (!v || typeof v !== "object" || Array.isArray(v))
    throw new NbError("config_error", "config.json must hold an object");
  return v as Record<string, unknown>;
}
