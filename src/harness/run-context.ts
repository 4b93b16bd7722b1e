import type { z } from "zod";
import { type Budgets, loadBudgets } from "../models/budgets.js";
import { loadPriceTable, type PriceTable } from "../models/prices.js";
import { type TokenCounter, tokenCounter } from "../models/tokens.js";
import { sessionOutput } from "../profiles/define.js";
import type { Profile, PromptContext, ResolvedAllowlist } from "../profiles/types.js";
import type { Project } from "../workspace/project.js";
import { type CanonSource, canonSource } from "./canon-input.js";
import type { HarnessDeps } from "./run.js";
import type { Session } from "./store/index.js";
import { modeGates, type OfferedTools, offeredTools } from "./tool-specs.js";
import type { ResolvedModel } from "./types.js";

/**
 * What one run works from, read once when it starts: the session, its profile and project, the
 * allowlist, the output schema, the tools offered and the model. Nothing in the run reads them again.
 */
export interface RunContext {
  session: Session;
  profile: Profile;
  project: Project | null;
  allow: ResolvedAllowlist;
  /** The structured result the profile asks for (report_result), if any. */
  output: z.ZodType | undefined;
  offered: OfferedTools;
  /** Whether the system prompt states the mode: only when the mode can stop one of the profile's tools. */
  modeShown: boolean;
  model: ResolvedModel;
  /** The prompt context without the mode, which a step sets. */
  prompt: Omit<PromptContext, "mode">;
  /** Brings lorebook entries into each call (prose profiles in a project with canon on), else null. */
  canon: CanonSource | null;
  /** Counts the tokens of what a call is sent (the manifest). */
  counter: TokenCounter;
  /** Prices and budgets from config, read when the run starts (a raised budget counts from the next run). */
  prices: PriceTable;
  budgets: Budgets;
}

/**
 * Build the context of one run of `sessionId`. `resolve` picks its model; it runs right after the
 * session and profile are read, before anything else, so a model that cannot be had fails first.
 */
export function buildRunContext(
  deps: HarnessDeps,
  sessionId: string,
  resolve: (session: Session, profile: Profile) => ResolvedModel,
): RunContext {
  const session = deps.store.session(sessionId);
  const profile = deps.catalog.get(session.profileKey);
  const model = resolve(session, profile);
  const allow = deps.catalog.allowlist(profile.key);
  const output = sessionOutput(profile, session.initial);
  const offered = offeredTools(deps.registry, profile, output);
  const project = session.project ? deps.workspace.project(session.project) : null;
  const meta = project?.meta() ?? null;
  const counter = tokenCounter(model.ref);
  const projectRoot = project?.root ?? null;
  return {
    session,
    profile,
    project,
    allow,
    output,
    offered,
    modeShown: modeGates(deps.registry, allow),
    model,
    prompt: {
      projectName: session.project,
      projectTitle: meta?.title ?? null,
      language: meta?.language ?? "en",
      initial: session.initial,
      toolKeys: [...allow.keys()],
    },
    canon: canonSource(project, profile, session, counter.count),
    counter,
    prices: loadPriceTable(deps.workspace.root, projectRoot),
    budgets: loadBudgets(deps.workspace.root, projectRoot),
  };
}
