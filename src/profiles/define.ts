import { z } from "zod";
import type { AllowEntry, Profile, ResolvedAllowlist } from "./types.js";

const KEY = /^[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*$/;

/** Define a profile; checks the key and that the allowlist has no duplicates. */
export function defineProfile(
  p: Omit<Profile, "source" | "initial" | "creation"> &
    Partial<Pick<Profile, "source" | "initial" | "creation">>,
): Profile {
  if (!KEY.test(p.key)) throw new Error(`invalid profile key: ${p.key}`);
  // `??`, not spread defaults: a caller passing `initial: undefined` still gets the empty schema.
  const profile: Profile = {
    ...p,
    creation: p.creation ?? "public",
    source: p.source ?? "builtin",
    initial: p.initial ?? z.object({}).strict(),
  };
  resolveAllowlist(profile);
  return Object.freeze(profile);
}

/** The type of one session's `report_result.data`: what its `initial` defines, else the profile's. */
export function sessionOutput(profile: Profile, initial: Record<string, unknown>): z.ZodType | undefined {
  return profile.outputFor?.(initial) ?? profile.output;
}

/** Key of an allowlist entry. */
export function entryKey(e: AllowEntry): string {
  return typeof e === "string" ? e : e.key;
}

/** Resolve a profile's allowlist into key → binding; a duplicate key is an error. */
export function resolveAllowlist(profile: Pick<Profile, "key" | "tools">): ResolvedAllowlist {
  const out = new Map<string, Readonly<Record<string, unknown>>>();
  for (const e of profile.tools) {
    const key = entryKey(e);
    if (out.has(key)) throw new Error(`profile ${profile.key} lists tool ${key} twice`);
    if (typeof e === "string") out.set(key, {});
    else {
      const { key: _k, ...binding } = e;
      out.set(key, Object.freeze(binding));
    }
  }
  return out;
}
