import { existsSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { readConfigFile } from "../core/config-file.js";
import { type FieldError, NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import { parseWebConfig, webSettings } from "../web/config.js";
import { isInside, realPathOf } from "../workspace/paths.js";
import { DEFAULT_HTTP_TIMEOUT_MS } from "./http-source.js";
import { DEFAULT_STALE_AFTER_HOURS } from "./staleness.js";

/** An http(s) base URL without credentials, query or fragment; a trailing slash is dropped. */
const BaseUrl = z
  .url()
  .refine((u) => /^https?:$/.test(new URL(u).protocol), "must be an http or https URL")
  .refine((u) => {
    const p = new URL(u);
    return p.username === "" && p.password === "";
  }, "must not carry user:password@ (a research service takes no credentials here)")
  .refine((u) => {
    const p = new URL(u);
    return p.search === "" && p.hash === "";
  }, "must not have a query or a fragment")
  .transform((u) => u.replace(/\/+$/, ""));

/** The `research` section of `.nbook/config.json` (workspace or project). */
export const ResearchConfigSchema = z
  .object({
    /** A research service speaking the NovelScope JSON API (docs/research.md). */
    http: z
      .object({
        baseUrl: BaseUrl,
        timeoutMs: z.number().int().positive().max(120_000).optional(),
      })
      .strict()
      .optional(),
    /** A folder of snapshot files: relative to the folder holding this `.nbook/` (absolute: workspace only). */
    dir: z.string().min(1).max(1000).optional(),
    /** Data collected longer ago than this is stale. */
    staleAfterHours: z
      .number()
      .positive()
      .max(24 * 3650)
      .optional(),
  })
  .strict();
export type ResearchConfig = z.infer<typeof ResearchConfigSchema>;

/**
 * One source the config names, in the order they are asked. A service a project adds carries
 * `allowPrivate`: it is reached only through web_fetch's address guard, with the workspace's
 * `web.fetch.allowPrivate` (a project folder may come from someone else, and must not reach your
 * own network through a read tool).
 */
export type SourceSetting =
  | {
      kind: "http";
      baseUrl: string;
      timeoutMs: number;
      fromProject: boolean;
      allowPrivate?: readonly string[];
    }
  | { kind: "file"; dir: string; shownAs: string; fromProject: boolean; confine?: string };

/** The effective research settings: sources in order (none: the offline sample) and staleness. */
export interface ResearchSettings {
  sources: SourceSetting[];
  staleAfterHours: number;
}

export interface ResearchConfigRoots {
  workspaceRoot: string;
  projectRoot?: string | null;
}

/** Validate one file's `research` section; `config_error` naming the file and the fields. */
export function parseResearchConfig(raw: unknown, label: string): ResearchConfig {
  const r = ResearchConfigSchema.safeParse(raw ?? {});
  if (!r.success) {
    const fields = zodFieldErrors(r.error, ["research"]);
    throw new NbError("config_error", `Invalid ${label}:\n${formatFieldErrors(fields)}`, { fields });
  }
  return r.data;
}

/**
 * Layer a project's research settings over the workspace's, by the trust rules of model providers
 * (docs/models.md): a project adds sources, asked after the workspace's, and labelled as the
 * project's wherever they answer; it may not redirect the workspace's service (another `baseUrl`
 * while the workspace has one is `config_error`), a service it adds is reached only at an address
 * web_fetch could reach (with the workspace's `allowPrivate`), and its snapshot folder must be
 * inside the project.
 */
export function mergeResearchConfig(
  workspace: ResearchConfig,
  project: ResearchConfig | null,
  roots: {
    workspaceRoot: string;
    projectRoot?: string | null;
    /** The workspace's `web.fetch.allowPrivate`, read only when a project adds a service. */
    allowPrivate?: () => readonly string[];
  },
  label = "project .nbook/config.json",
): ResearchSettings {
  const sources: SourceSetting[] = [];
  if (workspace.http) sources.push(httpSetting(workspace.http));
  if (workspace.dir) {
    const dir = resolve(roots.workspaceRoot, workspace.dir);
    const shownAs = isAbsolute(workspace.dir) ? `…/${dir.split(/[\\/]/).at(-1)}` : workspace.dir;
    sources.push({ kind: "file", dir, shownAs, fromProject: false });
  }
  if (project && roots.projectRoot) {
    const fields: FieldError[] = [];
    if (project.http && workspace.http && project.http.baseUrl !== workspace.http.baseUrl) {
      fields.push({
        pointer: "/research/http/baseUrl",
        message: `must stay ${workspace.http.baseUrl}; a project may not redirect the workspace's research service`,
      });
    }
    let projectDir: string | undefined;
    if (project.dir) {
      projectDir = resolve(roots.projectRoot, project.dir);
      const realRoot = realPathOf(roots.projectRoot, ".");
      let inside = !isAbsolute(project.dir);
      try {
        inside &&= isInside(realPathOf(projectDir, project.dir), realRoot);
      } catch {
        inside = false;
      }
      if (!inside) {
        fields.push({ pointer: "/research/dir", message: "must be a folder inside the project" });
      }
    }
    if (fields.length) {
      throw new NbError("config_error", `Invalid ${label}:\n${formatFieldErrors(fields)}`, { fields });
    }
    if (project.http && !workspace.http) {
      sources.push(httpSetting(project.http, roots.allowPrivate?.() ?? []));
    }
    if (project.dir && projectDir) {
      const confine = realPathOf(roots.projectRoot, ".");
      const shownAs = `${project.dir} in the project`;
      sources.push({ kind: "file", dir: projectDir, shownAs, fromProject: true, confine });
    }
  }
  return {
    sources,
    staleAfterHours: project?.staleAfterHours ?? workspace.staleAfterHours ?? DEFAULT_STALE_AFTER_HOURS,
  };
}

/** A service's setting; `allowPrivate` only for a project's, which goes through the address guard. */
function httpSetting(
  h: NonNullable<ResearchConfig["http"]>,
  allowPrivate?: readonly string[],
): SourceSetting {
  return {
    kind: "http",
    baseUrl: h.baseUrl,
    timeoutMs: h.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS,
    fromProject: allowPrivate !== undefined,
    ...(allowPrivate ? { allowPrivate } : {}),
  };
}

/** Load the effective research settings: the workspace's `.nbook/config.json`, then the project's. */
export function loadResearchSettings(roots: ResearchConfigRoots): ResearchSettings {
  const wsLabel = ".nbook/config.json";
  const wsRaw = readConfigFile(join(roots.workspaceRoot, ".nbook", "config.json"), wsLabel);
  const ws = parseResearchConfig(wsRaw.research, wsLabel);
  let project: ResearchConfig | null = null;
  const label = "project .nbook/config.json";
  if (roots.projectRoot) {
    const file = join(roots.projectRoot, ".nbook", "config.json");
    if (existsSync(file)) project = parseResearchConfig(readConfigFile(file, label).research, label);
  }
  const allowPrivate = () => webSettings(parseWebConfig(wsRaw.web, wsLabel)).fetch.allowPrivate;
  return mergeResearchConfig(ws, project, { ...roots, allowPrivate }, label);
}
