import type { ProfileCatalog } from "../profiles/catalog.js";
import { TOOL_GROUPS } from "../tools/groups.js";
import { ToolRegistry } from "../tools/registry.js";
import type { ToolGroup } from "../tools/types.js";
import type { Workspace } from "../workspace/workspace.js";
import { cachedListing, type ListingCache, listingCache, storeListing } from "./listing-cache.js";
import { type McpToolInfo, mcpTools } from "./tools.js";

/** The tools an MCP server offers and runs: what tools/list answers, and a tool's code ready for its call. */
export interface McpToolSet {
  /** Knows every tool key; holds the code of the tools loaded so far. */
  readonly registry: ToolRegistry;
  listing(): Promise<McpToolInfo[]>;
  /** Load the code of the tool `key` (a no-op once loaded, or for a key the registry does not know). */
  load(key: string): Promise<void>;
}

/** A tool set over a registry that already holds every tool's code (tests, tools added in-process). */
export function loadedToolSet(
  registry: ToolRegistry,
  catalog: ProfileCatalog,
  profileKey: string,
): McpToolSet {
  const listing = mcpTools(registry, catalog, profileKey);
  return { registry, listing: async () => listing, load: async () => {} };
}

/** A registry that knows every built-in tool's key and holds no code yet (profiles validate against it). */
export function builtinKeysRegistry(): ToolRegistry {
  return new ToolRegistry(
    [],
    TOOL_GROUPS.flatMap((g) => g.keys),
  );
}

/**
 * The built-in tools of `registry` (from builtinKeysRegistry), each group's code loaded on its
 * first call. tools/list answers from the listing cache when the build and the allowlist match;
 * only a miss loads the allowlist's groups to describe them, and stores what it found.
 */
export function lazyToolSet(
  registry: ToolRegistry,
  workspace: Workspace,
  catalog: ProfileCatalog,
  profileKey: string,
): McpToolSet {
  const loading = new Map<ToolGroup, Promise<void>>();
  const loadGroup = (group: (typeof TOOL_GROUPS)[number]): Promise<void> => {
    let p = loading.get(group.group);
    if (!p) {
      p = group.load().then((tools) => {
        for (const t of tools) registry.register(t);
      });
      loading.set(group.group, p);
    }
    return p;
  };
  const allow = catalog.allowlist(profileKey);
  let listing: Promise<McpToolInfo[]> | undefined;
  const describe = async (cache: ListingCache | null): Promise<McpToolInfo[]> => {
    const hit = cache && cachedListing(cache);
    if (hit) return hit;
    await Promise.all(TOOL_GROUPS.filter((g) => g.keys.some((k) => allow.has(k))).map(loadGroup));
    const tools = mcpTools(registry, catalog, profileKey);
    if (cache) storeListing(cache, tools);
    return tools;
  };
  return {
    registry,
    listing: () => {
      listing ??= describe(listingCache(workspace, profileKey, allow));
      return listing;
    },
    load: async (key) => {
      const group = TOOL_GROUPS.find((g) => g.keys.includes(key));
      if (group) await loadGroup(group);
    },
  };
}
