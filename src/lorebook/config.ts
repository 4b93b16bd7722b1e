import { join } from "node:path";
import { z } from "zod";
import { readConfigFile } from "../core/config-file.js";
import { NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import type { Project } from "../workspace/project.js";

const Budget = z.number().int().min(0).max(200_000);

/** The `canon` section of `.nbook/config.json` (workspace, then the project's over it, key by key). */
export const CanonConfigSchema = z
  .object({
    /** Bring lorebook entries into prose calls by their keys (default true). */
    enabled: z.boolean().optional(),
    /** Tokens the canon of one call may take (default 2000); 0 brings in none. */
    budgetTokens: Budget.optional(),
    /** Per profile key: its own budget. */
    profiles: z.record(z.string().min(1), z.object({ budgetTokens: Budget }).strict()).optional(),
    /** Rounds in which an included entry's text may bring in others (default 2, 0: none). */
    depth: z.number().int().min(0).max(5).optional(),
  })
  .strict();
export type CanonConfig = z.infer<typeof CanonConfigSchema>;

/** Canon settings for one profile, defaults filled in. */
export interface CanonSettings {
  enabled: boolean;
  budgetTokens: number;
  depth: number;
}

export const DEFAULT_CANON_BUDGET = 2000;
export const DEFAULT_CANON_DEPTH = 2;

function parse(raw: unknown, label: string): CanonConfig {
  const r = CanonConfigSchema.safeParse(raw ?? {});
  if (r.success) return r.data;
  const fields = zodFieldErrors(r.error, ["canon"]);
  throw new NbError("config_error", `Invalid ${label}:\n${formatFieldErrors(fields)}`, { fields });
}

/** The canon settings of `profileKey` in `project`: `config_error` with the field's pointer when a section is invalid. */
export function canonSettings(project: Project, profileKey: string): CanonSettings {
  const base = parse(project.workspace.readConfig().canon, ".nbook/config.json");
  const label = "project .nbook/config.json";
  const over = parse(readConfigFile(join(project.root, ".nbook", "config.json"), label).canon, label);
  const budget =
    over.profiles?.[profileKey]?.budgetTokens ??
    over.budgetTokens ??
    base.profiles?.[profileKey]?.budgetTokens ??
    base.budgetTokens ??
    DEFAULT_CANON_BUDGET;
  return {
    enabled: over.enabled ?? base.enabled ?? true,
    budgetTokens: budget,
    depth: over.depth ?? base.depth ?? DEFAULT_CANON_DEPTH,
  };
}
