import type { ProviderSettings, SearchProviderName } from "../config.js";

/** What web_search asks a provider for. */
export interface SearchRequest {
  query: string;
  /** Bare domains, normalised (`example.com`); results must be on one of them or a subdomain. */
  allowedDomains: string[];
  blockedDomains: string[];
  recencyDays?: number;
  maxResults: number;
}

/** One search result, the same whichever provider found it. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
  /** The site or engine that supplied it, when the provider says. */
  source?: string;
  /** Publication date as the provider gives it (ISO when it can be read). */
  publishedAt?: string;
  score?: number;
}

/** A search backend: one HTTP API behind the same small interface. */
export interface SearchProvider {
  readonly name: SearchProviderName;
  search(request: SearchRequest, signal: AbortSignal): Promise<SearchHit[]>;
}

/** Builds a provider from its settings and key (undefined when it needs none or has none). */
export type ProviderFactory = (settings: ProviderSettings, key: string | undefined) => SearchProvider;
