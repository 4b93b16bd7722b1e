import type { WorldAccess } from "../../world/script/job.js";
import { WORLD_SCRIPT_TIMEOUT_MS } from "../../world/script/run.js";

// The API in brief, sent on every turn: the rarer options (derefDepth, subjectMode, sourceType, kind)
// still work and are documented in docs/world-engine.md.
const READ_API = `world.time: now() (latest instant), parse("<calendar time>") → instant, format(instant, fmt?), describe()
world.subject: get(id, {at?, deref?}) → attributes at \`at\` (default latest) or null; gets(ids, {at?}); list(type?) → [{id, type, name}]; info(id); findRefs(id, {at?}) (who points at it); history(id, {path?}) → every change
world.search.text(query, {k?, types?, attrs?, at?}) → [{subjectId, attr, text, score}]
world.slice: list({from?, to?, limit?, subjectIds?, withPatches?}) in time order; get(sliceId) → {instant, title, patches, issues}
world.schema.describe() → types and attributes; world.issues.list({subjectId?, sliceId?})`;

const WRITE_API = `world.slice.write({time, title?, summary?, merge?, patches: [{subjectId, path, op, value?, type?, name?}]}) → {sliceId, patchIds, issues}
  op: replace | increment | remove | append; path: a JSON Pointer ("/hp", "/memory/师门"); a new subject's first patch carries its type. One slice per instant (merge: true adds to it), at most 100 patches.
world.slice.editPatches(sliceId, [{patchId, set: {path?, op?, value?}} | {patchId, remove: true} | {add: patch}]); world.slice.delete(sliceId)`;

/** The model-facing description of execute_world for one access level. */
export function worldToolDescription(access: WorldAccess): string {
  const seconds = WORLD_SCRIPT_TIMEOUT_MS[access] / 1000;
  const intro = `Run JavaScript against the project's World Engine (the time-sliced state of characters, places, factions, items). \`code\` is a function body: \`return\` a short string (other values come back as JSON, at most 10 KiB). Synchronous, sandboxed (no require, fetch or timers), at most ${seconds} s; console.log is returned too. Time is an integer of seconds.`;
  if (access === "readonly") return `${intro} READ-ONLY: you cannot change the world.\n\n${READ_API}`;
  return `${intro} One transaction: if it throws or times out, nothing it wrote is kept.\n\n${READ_API}\n${WRITE_API}`;
}
