// `@`-mentions of the workbench chat: what the popup offers as the user types (files, plot scenes,
// world subjects), and what a sent mention attaches to the message: the file's text (authorised as
// the files route reads it, inside the session's project only), the scene with what surrounds it,
// the subject's state now, each cut to a size cap.
import { z } from "zod";
import { NbError } from "../core/errors.js";
import type { Attachment } from "../harness/store/schema.js";
import { listScenes, openPlotContext } from "../plot/index.js";
import { getSceneContext } from "../plot/views.js";
import { authorize, readText } from "../tools/files/common.js";
import { openWorld } from "../world/world.js";
import type { ServeHub } from "./hub.js";
import type { FileNode } from "./responses.js";
import { userContext } from "./user-context.js";

/** Characters one mention attaches at most, and all the mentions of one message together. */
export const MENTION_CHARS = 20_000;
export const MENTIONS_CHARS = 60_000;
/** Mentions one message carries at most. */
export const MAX_MENTIONS = 10;

/** Scenes a popup search looks through (a project's live scenes, in book order). */
const SCENE_SCAN = 5_000;

export const MentionSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("file"), path: z.string().min(1).max(1000) }).strict(),
  z.object({ kind: z.literal("scene"), id: z.number().int().positive() }).strict(),
  z.object({ kind: z.literal("subject"), id: z.string().min(1).max(200) }).strict(),
]);
export type Mention = z.infer<typeof MentionSchema>;

/** One thing the popup offers: what to send back as the mention, and how to show it. */
export const MentionCandidateSchema = z
  .object({ mention: MentionSchema, label: z.string(), detail: z.string() })
  .strict();
export type MentionCandidate = z.infer<typeof MentionCandidateSchema>;

function cut(text: string, room: number): { text: string; truncated: boolean } {
  const cap = Math.max(0, Math.min(MENTION_CHARS, room));
  return text.length > cap ? { text: text.slice(0, cap), truncated: true } : { text, truncated: false };
}

/** A mention's own error, pointed at it in the request body. */
function at(i: number, field: string, e: unknown): never {
  if (e instanceof NbError)
    throw new NbError(e.code, e.message, {
      fields: [{ pointer: `/mentions/${i}/${field}`, message: e.message }],
    });
  throw e;
}

async function resolveOne(
  hub: ServeHub,
  project: string,
  m: Mention,
): Promise<Omit<Attachment, "truncated">> {
  if (m.kind === "file") {
    const r = authorize(userContext(hub, hub.workspace.project(project)), m.path, "read");
    if (r.project.name !== project || r.rel === "")
      throw new NbError("not_allowed", `${r.display} is not a file of project ${project}`);
    return { kind: "file", ref: r.rel, label: r.rel, text: await readText(r) };
  }
  if (m.kind === "scene") {
    const pc = await openPlotContext(hub.workspace.project(project), "user");
    const context = getSceneContext(pc, m.id);
    return {
      kind: "scene",
      ref: String(m.id),
      label: `${context.scene.title} (scene ${m.id})`,
      text: JSON.stringify(context, null, 2),
    };
  }
  const world = openWorld(hub.workspace.project(project));
  const info = world.subject.info(m.id);
  const state = info && world.subject.get(m.id);
  if (!info || !state) throw new NbError("not_found", `Unknown subject ${m.id}`);
  return {
    kind: "subject",
    ref: m.id,
    label: `${info.name} (${info.type} ${m.id})`,
    text: JSON.stringify({ ...info, state }, null, 2),
  };
}

/** The attachments of a message's mentions, in order; any mention that cannot be read refuses the message. */
export async function resolveMentions(
  hub: ServeHub,
  project: string,
  mentions: readonly Mention[],
): Promise<Attachment[]> {
  const out: Attachment[] = [];
  let room = MENTIONS_CHARS;
  for (const [i, m] of mentions.entries()) {
    const got = await resolveOne(hub, project, m).catch((e: unknown) =>
      at(i, m.kind === "file" ? "path" : "id", e),
    );
    const { text, truncated } = cut(got.text, room);
    room -= text.length;
    out.push({ ...got, text, truncated });
  }
  return out;
}

function* files(node: FileNode): Generator<FileNode> {
  if (node.kind === "file") yield node;
  for (const child of node.children ?? []) yield* files(child);
}

/** What the popup offers for `q` (matched case-insensitively anywhere): files, then scenes, then subjects. */
export async function findMentions(
  hub: ServeHub,
  project: string,
  q: string,
  limit: number,
): Promise<MentionCandidate[]> {
  const needle = q.toLowerCase();
  const has = (...texts: string[]) => texts.some((t) => t.toLowerCase().includes(needle));
  const out: MentionCandidate[] = [];
  const room = () => out.length < limit;
  for (const f of files(hub.projectFiles(project).tree.tree("").tree)) {
    if (!room()) return out;
    if (!f.path.startsWith(".") && has(f.path))
      out.push({ mention: { kind: "file", path: f.path }, label: f.path, detail: "file" });
  }
  const pc = await openPlotContext(hub.workspace.project(project), "user");
  for (const s of listScenes(pc, { limit: SCENE_SCAN }).rows) {
    if (!room()) return out;
    if (has(s.title, String(s.id)))
      out.push({ mention: { kind: "scene", id: s.id }, label: s.title, detail: `scene ${s.id}` });
  }
  for (const s of openWorld(hub.workspace.project(project)).subject.list()) {
    if (!room()) return out;
    if (has(s.name, s.id))
      out.push({ mention: { kind: "subject", id: s.id }, label: s.name, detail: `${s.type} ${s.id}` });
  }
  return out;
}
