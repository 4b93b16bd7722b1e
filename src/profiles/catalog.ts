import { existsSync, readdirSync } from "node:fs";
import { extname, join } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { NbError } from "../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../core/validate.js";
import { yamlErrorLine } from "../core/yaml-error.js";
import { skillsSection, usableSkills } from "../skills/index.js";
import type { ToolRegistry } from "../tools/registry.js";
import { type AgentRoot, agentRoots } from "../workspace/agent-roots.js";
import type { Project } from "../workspace/project.js";
import { readTextSafeSync } from "../workspace/safe-read.js";
import type { Workspace } from "../workspace/workspace.js";
import { BUILTIN_PROFILES } from "./builtin/index.js";
import { basePrompt } from "./builtin/prompt.js";
import { defineProfile, entryKey, resolveAllowlist } from "./define.js";
import { projectInstructions } from "./project-instructions.js";
import type { Profile, PromptContext, ResolvedAllowlist } from "./types.js";

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

/** The largest profile file read. */
const MAX_PROFILE_BYTES = 1024 * 1024;

const BUILTIN_KEYS = new Map(BUILTIN_PROFILES.map((p) => [p.key, p]));

/** True when a user or project file replaced the built-in profile of the same key. */
export function overridesBuiltin(p: Profile): boolean {
  return p.source !== "builtin" && BUILTIN_KEYS.has(p.key);
}

/**
 * What to tell the user before an agent runs with `p`, when it overrides a built-in profile (its
 * prompt and tools are then someone else's, possibly a project's); null otherwise.
 */
export function overrideNotice(p: Profile): string | null {
  const builtin = BUILTIN_KEYS.get(p.key);
  if (!builtin || !overridesBuiltin(p)) return null;
  const own = new Set(builtin.tools.map(entryKey));
  const added = p.tools.map(entryKey).filter((k) => !own.has(k));
  return (
    `profile ${p.key} is not the built-in one: the ${p.source} file ${p.file} overrides it with its own prompt and tools` +
    (added.length ? ` (tools the built-in does not have: ${added.join(", ")})` : "")
  );
}

/** Hooks a catalog's owner may set. */
export interface ProfileCatalogOptions {
  /** Called once per key, the first time an overridden built-in profile is fetched with `get`. */
  onOverriddenProfile?: (notice: string) => void;
}

/**
 * Profiles from three layers: built-in < user (workspace) < project. A later layer overrides by key.
 * A profile whose allowlist resolves to no tools is unavailable: an agent with it could do nothing,
 * so it is not listed and `get` refuses it. Every profile's prompt ends with the skills catalog (when
 * the profile may `read`) and the project's AGENTS.md.
 */
export class ProfileCatalog {
  private readonly profiles = new Map<string, Profile>();
  private readonly unavailable = new Map<string, string>();
  private readonly noticed = new Set<string>();
  private readonly workspace: Workspace | undefined;
  private readonly opts: ProfileCatalogOptions;
  readonly problems: ProfileProblem[] = [];

  constructor(
    registry: ToolRegistry,
    workspace?: Workspace,
    project?: Project | null,
    opts: ProfileCatalogOptions = {},
  ) {
    this.workspace = workspace;
    this.opts = opts;
    for (const p of BUILTIN_PROFILES) this.add(p, registry, "(builtin)");
    for (const root of agentRoots("profiles", workspace, project)) this.loadDir(root, registry);
  }

  /** A profile by key; `not_found` when none, `not_allowed` when it is unavailable (no tools). */
  get(key: string): Profile {
    const p = this.profiles.get(key);
    if (!p) {
      const why = this.unavailable.get(key);
      if (why) throw new NbError("not_allowed", why);
      // Naming the known keys lets a person or an agent correct a typo without a second lookup.
      throw new NbError(
        "not_found",
        `Unknown profile: ${key}. Known profiles: ${[...this.profiles.keys()].join(", ")}`,
      );
    }
    if (this.opts.onOverriddenProfile && !this.noticed.has(key)) {
      this.noticed.add(key);
      const notice = overrideNotice(p);
      if (notice) this.opts.onOverriddenProfile(notice);
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

  private add(p: Profile, registry: ToolRegistry, file: string): void {
    const unknown = p.tools.map(entryKey).filter((k) => !registry.has(k));
    if (unknown.length) {
      const msg = `profile ${p.key}: unknown tool${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}`;
      if (p.source === "builtin") throw new Error(msg);
      this.problems.push({ file, message: msg });
      return;
    }
    if (resolveAllowlist(p).size === 0) {
      const why = `Profile ${p.key} is unavailable: its allowlist has no tools, so an agent with it could do nothing`;
      // A built-in waiting for its tools (the researcher's web tools) is simply not offered yet.
      if (p.source === "builtin")
        this.unavailable.set(p.key, `${why} (its tools are not part of this version)`);
      else this.problems.push({ file, message: why });
      return;
    }
    this.unavailable.delete(p.key);
    this.profiles.set(p.key, this.withInstructions(p));
  }

  /**
   * `p` with the skills catalog (for a profile that may `read` them) and the project's AGENTS.md
   * appended to its prompt (both read when the prompt is built).
   */
  private withInstructions(p: Profile): Profile {
    const workspace = this.workspace;
    if (!workspace) return p;
    const prompt = p.systemPrompt;
    const systemPrompt = (ctx: PromptContext) => {
      const project =
        ctx.projectName && workspace.hasProject(ctx.projectName) ? workspace.project(ctx.projectName) : null;
      const skills = ctx.toolKeys.includes("read")
        ? skillsSection(usableSkills(workspace, project), p.skills)
        : null;
      const instructions = project ? projectInstructions(project) : null;
      return [prompt(ctx), skills, instructions].filter((s) => s).join("\n\n");
    };
    return Object.freeze({ ...p, systemPrompt });
  }

  /** Load a layer's profile files (the workspace's are the user's). */
  private loadDir(root: AgentRoot, registry: ToolRegistry): void {
    if (!existsSync(root.dir)) return;
    const source = root.layer === "workspace" ? "user" : "project";
    for (const name of readdirSync(root.dir).sort()) {
      const ext = extname(name).toLowerCase();
      if (![".yaml", ".yml", ".json"].includes(ext)) continue;
      const path = join(root.dir, name);
      const file = `${root.label}/${name}`;
      try {
        const text = readTextSafeSync(path, {
          label: file,
          root: root.within,
          maxBytes: MAX_PROFILE_BYTES,
        });
        // Listed a moment ago, so gone now: a link to nothing.
        if (text === null) throw new NbError("not_found", `${file} is a broken symbolic link`);
        const raw = ext === ".json" ? JSON.parse(text) : parseYaml(text);
        const r = ProfileFileSchema.safeParse(raw);
        if (!r.success) {
          this.problems.push({ file, message: formatFieldErrors(zodFieldErrors(r.error)) });
          continue;
        }
        this.add(this.fromFile(r.data, source, file), registry, file);
      } catch (e) {
        this.problems.push({ file, message: yamlErrorLine(e) ?? (e as Error).message.split("\n")[0] });
      }
    }
  }

  /** Build a profile from a file; overriding a built-in keeps the built-in's schemas. */
  private fromFile(f: z.infer<typeof ProfileFileSchema>, source: "user" | "project", file: string): Profile {
    const base = this.profiles.get(f.key) ?? BUILTIN_KEYS.get(f.key);
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
