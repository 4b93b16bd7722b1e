import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { readConfigFile } from "../core/config-file.js";
import { type FieldError, NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import { isAllowEntry } from "./fetch/allow-entry.js";

/** The search providers NeuroBook can ask, by the name `web.search.order` uses. */
export const SEARCH_PROVIDERS = ["searxng", "brave", "tavily"] as const;
export type SearchProviderName = (typeof SEARCH_PROVIDERS)[number];

const ENV_NAME = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an environment variable name");
const TIMEOUT = z.number().int().positive().max(120_000);

/** A provider URL: http(s) without `user:password@` (keys come only from the environment). */
const ENDPOINT = z.url({ protocol: /^https?$/ }).refine((u) => {
  const url = new URL(u);
  return url.username === "" && url.password === "";
}, "credentials belong in the environment: use apiKeyEnv, not user:password@ in the URL");

const SearxngSchema = z
  .object({
    enabled: z.boolean().optional(),
    /** The instance's base URL (its JSON API is `<url>/search?format=json`); may be on localhost. */
    url: ENDPOINT.optional(),
    /** Only for an instance behind a proxy that wants a bearer token. */
    apiKeyEnv: ENV_NAME.optional(),
    timeoutMs: TIMEOUT.optional(),
    /** SearXNG `language` parameter (e.g. `zh-CN`, `en`); the instance's default when absent. */
    language: z.string().min(2).max(16).optional(),
  })
  .strict();

const BraveSchema = z
  .object({
    enabled: z.boolean().optional(),
    url: ENDPOINT.optional(),
    apiKeyEnv: ENV_NAME.optional(),
    timeoutMs: TIMEOUT.optional(),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, "two letters, e.g. US")
      .optional(),
    searchLang: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]{2,4})?$/i, "a language code such as en or zh-hans")
      .optional(),
  })
  .strict();

const TavilySchema = z
  .object({
    enabled: z.boolean().optional(),
    url: ENDPOINT.optional(),
    apiKeyEnv: ENV_NAME.optional(),
    timeoutMs: TIMEOUT.optional(),
    searchDepth: z.enum(["basic", "advanced"]).optional(),
  })
  .strict();

/** The `web` section of `.nbook/config.json`. */
export const WebConfigSchema = z
  .object({
    search: z
      .object({
        order: z.array(z.enum(SEARCH_PROVIDERS)).max(10).optional(),
        providers: z
          .object({
            searxng: SearxngSchema.optional(),
            brave: BraveSchema.optional(),
            tavily: TavilySchema.optional(),
          })
          .strict()
          .default({}),
      })
      .strict()
      .default({ providers: {} }),
    fetch: z
      .object({
        timeoutMs: TIMEOUT.optional(),
        maxBytes: z.number().int().min(1024).max(50_000_000).optional(),
        maxRedirects: z.number().int().min(0).max(20).optional(),
        maxCharacters: z.number().int().min(100).max(40_000).optional(),
        cacheTtlSeconds: z.number().int().min(0).max(86_400).optional(),
        /** Hosts, IP addresses or CIDR ranges of your own services that may be private. */
        allowPrivate: z
          .array(z.string().refine(isAllowEntry, "a host name, an IP address or a CIDR range"))
          .max(100)
          .optional(),
      })
      .strict()
      .default({}),
  })
  .strict();
export type WebConfig = z.infer<typeof WebConfigSchema>;

/** Where each provider is reached and which variable holds its key when config says nothing. */
export const PROVIDER_DEFAULTS: Record<SearchProviderName, { url?: string; apiKeyEnv?: string }> = {
  searxng: {},
  brave: { url: "https://api.search.brave.com/res/v1/web/search", apiKeyEnv: "BRAVE_API_KEY" },
  tavily: { url: "https://api.tavily.com/search", apiKeyEnv: "TAVILY_API_KEY" },
};

/** A key variable web_search sends, the provider that sends it and the URL it goes to. */
export interface SearchKeyBinding {
  name: string;
  provider: SearchProviderName;
  url?: string;
}

const field = (o: unknown, key: string): unknown =>
  o && typeof o === "object" ? (o as Record<string, unknown>)[key] : undefined;

/**
 * The key variables web_search sends, each with where it goes: every provider's default
 * (BRAVE_API_KEY, TAVILY_API_KEY) and whatever a workspace's raw `web` section names instead. Read
 * leniently, without validating: a section web_search would refuse still names the variables meant.
 */
export function searchKeyBindings(rawWeb: unknown): SearchKeyBinding[] {
  const out: SearchKeyBinding[] = [];
  for (const provider of SEARCH_PROVIDERS) {
    const d = PROVIDER_DEFAULTS[provider];
    if (d.apiKeyEnv) out.push({ name: d.apiKeyEnv, provider, ...(d.url ? { url: d.url } : {}) });
    const p = field(field(field(rawWeb, "search"), "providers"), provider);
    const configured = { name: field(p, "apiKeyEnv"), url: field(p, "url") };
    const name = typeof configured.name === "string" ? configured.name : d.apiKeyEnv;
    const url = typeof configured.url === "string" ? configured.url : d.url;
    if (name) out.push({ name, provider, ...(url ? { url } : {}) });
  }
  return out;
}

export const DEFAULT_SEARCH_ORDER: readonly SearchProviderName[] = ["searxng", "brave", "tavily"];
export const DEFAULT_SEARCH_TIMEOUT_MS = 15_000;

/** One provider's settings with defaults applied. */
export interface ProviderSettings {
  name: SearchProviderName;
  enabled: boolean;
  url?: string;
  apiKeyEnv?: string;
  timeoutMs: number;
  /** Provider-specific options as configured (country, searchLang, language, searchDepth). */
  options: Readonly<Record<string, string>>;
}

/** web_fetch limits with defaults applied. */
export interface FetchSettings {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  maxCharacters: number;
  cacheTtlSeconds: number;
  allowPrivate: readonly string[];
}

export interface WebSettings {
  search: { order: SearchProviderName[]; providers: Record<SearchProviderName, ProviderSettings> };
  fetch: FetchSettings;
}

export const FETCH_DEFAULTS: FetchSettings = {
  timeoutMs: 15_000,
  maxBytes: 2_000_000,
  maxRedirects: 5,
  maxCharacters: 20_000,
  cacheTtlSeconds: 600,
  allowPrivate: [],
};

/** A provider's URL and key variable as they are in effect (configured, else the default). */
function endpointOf(config: WebConfig, name: SearchProviderName): { url?: string; apiKeyEnv?: string } {
  const p = config.search.providers[name];
  return {
    url: p?.url ?? PROVIDER_DEFAULTS[name].url,
    apiKeyEnv: p?.apiKeyEnv ?? PROVIDER_DEFAULTS[name].apiKeyEnv,
  };
}

/** The config with every default filled in. */
export function webSettings(config: WebConfig): WebSettings {
  const providers = {} as Record<SearchProviderName, ProviderSettings>;
  for (const name of SEARCH_PROVIDERS) {
    const { enabled, url, apiKeyEnv, timeoutMs, ...options } = config.search.providers[name] ?? {};
    const endpoint = endpointOf(config, name);
    providers[name] = {
      name,
      enabled: enabled ?? true,
      ...(endpoint.url ? { url: endpoint.url } : {}),
      ...(endpoint.apiKeyEnv ? { apiKeyEnv: endpoint.apiKeyEnv } : {}),
      timeoutMs: timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS,
      options: options as Record<string, string>,
    };
  }
  const order = config.search.order?.length ? [...new Set(config.search.order)] : [...DEFAULT_SEARCH_ORDER];
  const fetch = { ...FETCH_DEFAULTS };
  for (const [k, v] of Object.entries(config.fetch)) if (v !== undefined) Object.assign(fetch, { [k]: v });
  return { search: { order, providers }, fetch };
}

/** Validate the `web` section of one config file; `source` names the file in errors. */
export function parseWebConfig(raw: unknown, source: string): WebConfig {
  const r = WebConfigSchema.safeParse(raw ?? {});
  if (r.success) return r.data;
  const fields = zodFieldErrors(r.error, ["web"]);
  throw new NbError("config_error", `Invalid ${source}:\n${formatFieldErrors(fields)}`, { fields });
}

/**
 * What a project's `web` section may not do: allow a private address the workspace does not, or
 * send a search request (and so its key) to another URL or with another key variable. A project
 * folder may come from someone else; these would let it reach your own network or your keys.
 */
export function projectWebViolations(workspace: WebConfig, project: WebConfig): FieldError[] {
  const out: FieldError[] = [];
  const allowed = new Set((workspace.fetch.allowPrivate ?? []).map((e) => e.toLowerCase()));
  (project.fetch.allowPrivate ?? []).forEach((entry, i) => {
    if (!allowed.has(entry.toLowerCase())) {
      out.push({
        pointer: `/web/fetch/allowPrivate/${i}`,
        message: `${entry} is not allowed by the workspace; only the workspace .nbook/config.json may allow private addresses`,
      });
    }
  });
  for (const name of SEARCH_PROVIDERS) {
    const p = project.search.providers[name];
    if (!p) continue;
    const own = endpointOf(workspace, name);
    const keep = "; a project may not redirect a search provider or its key";
    if (p.url !== undefined && p.url !== own.url) {
      out.push({
        pointer: `/web/search/providers/${name}/url`,
        message: `must stay ${own.url ?? "unset"}${keep}`,
      });
    }
    if (p.apiKeyEnv !== undefined && p.apiKeyEnv !== own.apiKeyEnv) {
      out.push({
        pointer: `/web/search/providers/${name}/apiKeyEnv`,
        message: `must stay ${own.apiKeyEnv ?? "unset"}${keep}`,
      });
    }
  }
  return out;
}

/** Layer a project's `web` section over the workspace's (refused when it breaks the trust rules). */
export function mergeWebConfig(
  base: WebConfig,
  over: WebConfig,
  label = "project .nbook/config.json",
): WebConfig {
  const fields = projectWebViolations(base, over);
  if (fields.length) {
    throw new NbError("config_error", `Invalid ${label}:\n${formatFieldErrors(fields)}`, { fields });
  }
  const providers = { ...base.search.providers };
  for (const name of SEARCH_PROVIDERS) {
    const o = over.search.providers[name];
    if (o) providers[name] = { ...base.search.providers[name], ...o } as never;
  }
  return {
    search: { order: over.search.order ?? base.search.order, providers },
    fetch: { ...base.fetch, ...over.fetch },
  };
}

/** The effective web settings: the workspace's `web` section, then the project's. */
export function loadWebSettings(roots: { workspaceRoot: string; projectRoot?: string | null }): WebSettings {
  const base = parseWebConfig(
    readConfigFile(join(roots.workspaceRoot, ".nbook", "config.json"), ".nbook/config.json").web,
    ".nbook/config.json",
  );
  if (!roots.projectRoot) return webSettings(base);
  const file = join(roots.projectRoot, ".nbook", "config.json");
  if (!existsSync(file)) return webSettings(base);
  const label = "project .nbook/config.json";
  return webSettings(mergeWebConfig(base, parseWebConfig(readConfigFile(file, label).web, label), label));
}
