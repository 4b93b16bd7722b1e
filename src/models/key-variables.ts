import type { FieldError } from "../core/errors.js";
import { searchKeyBindings } from "../web/config.js";
import type { ModelsConfig, ProviderConfig, ProviderKind } from "./config.js";

/** The key variable a provider of each kind reads when `apiKeyEnv` is not set (none for local servers). */
export const DEFAULT_KEY_ENV: Record<ProviderKind, string | undefined> = {
  "openai-compatible": undefined,
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  scripted: undefined,
};

/**
 * The names a project's config may give as a key variable without the workspace allowing them:
 * `<NAME>_API_KEY`, the convention of model providers (OPENAI_API_KEY, DEEPSEEK_API_KEY, …). It
 * keeps a project from naming any other secret of the environment (`AWS_SECRET_ACCESS_KEY`,
 * `GITHUB_TOKEN`) as a provider key, which would send it as a bearer token.
 */
export const PROVIDER_KEY_VARIABLE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_API_KEY$/;

/** Name of the environment variable holding this provider's API key, if it needs one. */
export function apiKeyEnvOf(p: ProviderConfig): string | undefined {
  return p.apiKeyEnv ?? DEFAULT_KEY_ENV[p.kind];
}

/** Where a provider sends its key: its kind and URL (a kind's default URL when none is set). */
function endpointOf(p: Pick<ProviderConfig, "kind" | "baseURL">): string {
  return `${p.kind} ${p.baseURL ? p.baseURL.replace(/\/+$/, "") : "(default URL)"}`;
}

/**
 * What a project's `.nbook/config.json` may not do, as field errors (empty when it is fine). A
 * project may add providers, but a key variable goes only where the workspace sends it: a workspace
 * provider keeps its kind, URL and key variable, a key variable of the workspace (a provider's,
 * web_search's, or a kind's default one) is not sent to another endpoint, and a new variable must
 * look like a provider key (`PROVIDER_KEY_VARIABLE`) or be listed in the workspace's
 * `allowKeyVariables`.
 */
export function projectConfigViolations(workspace: ModelsConfig, project: ModelsConfig): FieldError[] {
  const out: FieldError[] = [];
  if (project.allowKeyVariables !== undefined) {
    out.push({
      pointer: "/allowKeyVariables",
      message: "only the workspace .nbook/config.json may allow key variables",
    });
  }
  // Each key variable the workspace sends, to which endpoints, and whose key it is (for the message).
  const sentTo = new Map<string, { endpoints: Set<string>; owner: string }>();
  const bind = (name: string, endpoint: string, owner: string) => {
    const entry = sentTo.get(name) ?? { endpoints: new Set<string>(), owner };
    entry.endpoints.add(endpoint);
    sentTo.set(name, entry);
  };
  for (const [kind, name] of Object.entries(DEFAULT_KEY_ENV)) {
    if (name) bind(name, endpointOf({ kind: kind as ProviderKind }), "another endpoint");
  }
  for (const p of Object.values(workspace.providers)) {
    const name = apiKeyEnvOf(p);
    if (name) bind(name, endpointOf(p), "another endpoint");
  }
  // web_search's keys (its own config section): never a model endpoint, so no project provider gets one.
  for (const b of searchKeyBindings(workspace.web)) {
    bind(b.name, `web_search ${b.provider} ${b.url ?? ""}`, `web_search (${b.provider})`);
  }
  const allowed = new Set(workspace.allowKeyVariables ?? []);

  for (const [id, p] of Object.entries(project.providers)) {
    const at = `/providers/${id}`;
    const own = workspace.providers[id];
    if (own) {
      const keep = "; a project may not redirect a workspace provider (add one under another id instead)";
      if (p.kind !== own.kind) out.push({ pointer: `${at}/kind`, message: `must stay ${own.kind}${keep}` });
      else if (endpointOf(p) !== endpointOf(own)) {
        out.push({
          pointer: `${at}/baseURL`,
          message: `must stay ${own.baseURL ?? "unset (the default URL)"}${keep}`,
        });
      }
      if (apiKeyEnvOf(p) !== apiKeyEnvOf(own)) {
        out.push({
          pointer: `${at}/apiKeyEnv`,
          message: `must stay ${apiKeyEnvOf(own) ?? "unset (no key)"}${keep}`,
        });
      }
      continue;
    }
    const name = apiKeyEnvOf(p);
    if (!name) continue;
    const pointer = p.apiKeyEnv ? `${at}/apiKeyEnv` : `${at}/baseURL`;
    const bound = sentTo.get(name);
    if (bound) {
      if (!bound.endpoints.has(endpointOf(p))) {
        out.push({
          pointer,
          message: `${name} is the key of ${bound.owner}; a project may not send it to ${p.baseURL ?? `the default ${p.kind} URL`} (configure that provider in the workspace .nbook/config.json)`,
        });
      }
    } else if (!PROVIDER_KEY_VARIABLE.test(name) && !allowed.has(name)) {
      out.push({
        pointer,
        message: `${name} does not look like a provider key (<NAME>_API_KEY); if it is one, list it in the workspace .nbook/config.json "allowKeyVariables"`,
      });
    }
  }
  return out;
}
