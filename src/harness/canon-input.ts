import { join } from "node:path";
import type { WorkingText } from "../lorebook/activation.js";
import { type Canon, gatherCanon } from "../lorebook/canon.js";
import { canonSettings } from "../lorebook/config.js";
import type { SceneTarget } from "../lorebook/story-time.js";
import type { Profile } from "../profiles/types.js";
import type { Project } from "../workspace/project.js";
import { readTextSafeSync } from "../workspace/safe-read.js";
import type { PathState } from "./context.js";
import type { Session } from "./store/index.js";

/** The profiles that write prose, whose calls get canon brought in (issue 22 item 4). */
export const PROSE_PROFILES: ReadonlySet<string> = new Set([
  "writer",
  "leader.default",
  "director",
  "inline.editor",
]);

/** Recent messages looked at for keys, and the end of the target chapter (where the writing is). */
const RECENT_MESSAGES = 6;
const CHAPTER_CHARS = 24_000;
const MAX_CHAPTER_BYTES = 8 * 1024 * 1024;

/** Gathers the canon of a call from the history as it stands; null for a profile or project without canon. */
export type CanonSource = (state: PathState) => Canon;

const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

/** The target file and scene the call writes: from the invocation's payload, else the session's initial. */
function targetOf(state: PathState, session: Session): { path?: string; scene: SceneTarget } {
  const p = state.payload ?? {};
  const i = session.initial;
  const path = str(p.path) ?? str(p.targetPath) ?? str(i.defaultChapterPath);
  const sceneId = typeof p.sceneId === "number" ? p.sceneId : undefined;
  const chapter = str(p.chapterId) ?? (typeof p.chapterId === "number" ? String(p.chapterId) : undefined);
  return { path, scene: { ...(sceneId !== undefined ? { sceneId } : {}), ...(chapter ? { chapter } : {}) } };
}

function chapterText(project: Project, path: string): string {
  try {
    const text = readTextSafeSync(join(project.root, path), {
      label: path,
      root: project.realRoot,
      maxBytes: MAX_CHAPTER_BYTES,
    });
    return text ? text.slice(-CHAPTER_CHARS) : "";
  } catch {
    // A target that cannot be read yet (a new chapter) has no text to match.
    return "";
  }
}

/**
 * The working texts keys are looked for in, in this order (the cut order's "earlier match"): the
 * invocation's message (the brief), the recent messages, then the end of the target chapter.
 */
export function workingTexts(project: Project, state: PathState, session: Session): WorkingText[] {
  const said: string[] = [];
  for (const e of state.visible) {
    if (e.kind === "user" && e.data.intent !== "system") said.push(e.data.text);
    else if (e.kind === "assistant" && e.data.text) said.push(e.data.text);
  }
  const brief = [...state.visible].reverse().find((e) => e.kind === "user" && e.data.intent === "prompt");
  const out: WorkingText[] = [];
  if (brief?.kind === "user") out.push({ source: "brief", text: brief.data.text });
  out.push({ source: "messages", text: said.slice(-RECENT_MESSAGES).join("\n") });
  const { path } = targetOf(state, session);
  if (path) out.push({ source: `chapter ${path}`, text: chapterText(project, path) });
  return out;
}

/** The canon source of a run: a prose profile in a project whose canon is on; null otherwise. */
export function canonSource(
  project: Project | null,
  profile: Profile,
  session: Session,
  countTokens: (text: string) => number,
): CanonSource | null {
  if (!project || !PROSE_PROFILES.has(profile.key)) return null;
  const settings = canonSettings(project, profile.key);
  if (!settings.enabled) return null;
  return (state) =>
    gatherCanon(
      project,
      targetOf(state, session).scene,
      workingTexts(project, state, session),
      settings,
      countTokens,
    );
}
