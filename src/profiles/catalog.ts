import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { Project } from "../workspace/project.js";
import type { Workspace } from "../workspace/workspace.js";
import { BUILTIN_PROFILES } from "./builtin/index.js";
import { basePrompt } from "./builtin/prompt.js";
import { defineProfile, entryKey, resolveAllowlist } from "./define.js";
import type { Profile, ResolvedAllowlist } from "./types.js";

/** A profile file that could not be loaded, and why. */
export interface ProfileProblem {
  file: string;
  message: string;
}

/** The declarative format of a user or project profile file (YAML or JSON). */
export const ProfileFileSchema = z
  .object({
    key: z.string().regex(/^[a-z][a-z0-9]*(?:[._-][a-z0-9]+)*$/, "lowercase key like my.profile"),
    name: z.string().min(1).max(80),
    description: z.string().max(1000).default(""),
    creation: z.enum(["public", "system_only"]).default("public"),
    tools: z.array(z.union([z.string().min(1), z.object({ key: z.string().min(1) }).loose()])),
    prompt: z.string().min(1),
    defaultModel: z.string().optional(),
  })
  .strict();

/** Profiles from three layers: built-in < user (workspace) < project. A later layer overrides by key. */
export class ProfileCatalog {
  private readonly profiles = new Map<string, Profile>();
  readonly problems: ProfileProblem[] = [];

  constructor(registry: ToolRegistry, workspace?: Workspace, project?: Project | null) {
    for (const p of BUILTIN_PROFILES) this.add(p, registry, "(builtin)");
    if (workspace)
      this.loadDir(join(workspace.nbookDir, "agent", "profiles"), "user", registry, workspace.root);
    if (workspace && project) {
      this.loadDir(join(project.root, ".nbook", "agent", "profiles"), "project", registry, workspace.root);
    }
  }

  /** A profile by key; `not_found` when none. */
  get(key: string): Profile {
    const p = this.profiles.get(key);
    // Naming the known keys lets a person or an agent correct a typo without a second lookup.
    if (!p) {
      throw new NbError(
        "not_found",
        `Unknown profile: ${key}. Known profiles: ${[...this.profiles.keys()].join(", ")}`,
      );
    }
    return p;
  }

  has(key: string): boolean {
    return this.profiles.has(key);
  }

  list(): Profile[] {
    return [...this.profiles.values()];
  }

  /** The resolved allowlist of a profile. */
  allowlist(key: string): ResolvedAllowlist {
    return resolveAllowlist(this.get(key));
  }

  private add(p: Profile, registry: ToolRegistry, file: string): boolean {
    const unknown = p.tools.map(entryKey).filter((k) => !registry.has(k));
    if (unknown.length) {
      const msg = `profile ${p.key}: unknown tool${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}`;
      if (p.source === "builtin") throw new Error(msg);
      this.problems.push({ file, message: msg });
      return false;
    }
    this.profiles.set(p.key, p);
    return true;
  }

  private loadDir(dir: string, source: "user" | "project", registry: ToolRegistry, base: string): void {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir).sort()) {
      const ext = extname(name).toLowerCase();
      if (![".yaml", ".yml", ".json"].includes(ext)) continue;
      const path = join(dir, name);
      const file = relative(base, path).split("\\").join("/");
      try {
        const text = readFileSync(path, "utf8");
        const raw = ext === ".json" ? JSON.parse(text) : parseYaml(text);
        const r = ProfileFileSchema.safeParse(raw);
        if (!r.success) {
          this.problems.push({ file, message: formatFieldErrors(zodFieldErrors(r.error)) });
          continue;
        }
        this.add(this.fromFile(r.data, source, file), registry, file);
      } catch (e) {
        this.problems.push({ file, message: (e as Error).message.split("\n")[0] });
      }
    }
  }

  /** Build a profile from a file; overriding a built-in keeps the built-in's schemas. */
  private fromFile(f: z.infer<typeof ProfileFileSchema>, source: "user" | "project", file: string): Profile {
    const base = this.profiles.get(f.key);
    const prompt = f.prompt;
    return defineProfile({
      key: f.key,
      name: f.name,
      description: f.description,
      creation: base?.creation ?? f.creation,
      initial: base?.initial,
      payload: base?.payload,
      output: base?.output,
      tools: f.tools,
      defaultModel: f.defaultModel,
      systemPrompt: (ctx) => `${basePrompt(prompt, ctx)}`,
      source,
      file,
    });
  }
}
