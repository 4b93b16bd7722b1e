import type { WorldAccess } from "../../world/script/job.js";
import { WORLD_SCRIPT_TIMEOUT_MS } from "../../world/script/run.js";

const READ_API = `world.time.now() → latest slice instant at script start (0 for an empty world)
world.time.parse("<calendar time>") → instant;  world.time.format(instant, fmt?) → calendar string;  world.time.describe()
world.subject.get(id, {at?, deref?, derefDepth?}) → attributes at \`at\` (default latest) or null; deref embeds {__ref, ...target}
world.subject.gets(ids, {at?}) → [attrs | null];  world.subject.list(type?) → [{id, type, name}];  world.subject.info(id)
world.subject.findRefs(id, {at?, sourceType?}) → [{subjectId, attr}] (who points at subject://id)
world.subject.history(id, {path?}) → every change: [{sliceId, instant, sliceTitle, patchId, path, op, value}]
world.search.text(query, {k?, types?, attrs?, at?}) → [{subjectId, type, attr, text, score}] over text attributes
world.slice.list({from?, to?, limit?, subjectIds?, subjectMode?, withPatches?}) → slices in time order (limit alone = latest N)
world.slice.get(sliceId) → {id, instant, title, summary, kind, patches: [{patchId, subjectId, path, op, value}], issues}
world.schema.describe() → subject types and their attributes;  world.issues.list({subjectId?, sliceId?}) → current E issues`;

const WRITE_API = `world.slice.write({time, title?, summary?, kind?, merge?, patches: [{subjectId, path, op, value?, summary?, type?, name?}]})
  → {sliceId, instant, patchIds, issues (caused by this write), existingIssues}
  ops: replace | increment | remove | append; paths are JSON Pointers ("/hp", "/inventory", "/memory/师门").
  One slice per instant: a second write at a taken time fails with conflict unless merge: true. At most 100 patches.
  A new subject's first patch must carry its type (and may carry name). Invalid patches are rejected; nothing is stored.
world.slice.editPatches(sliceId, [{patchId, set: {path?, op?, value?, summary?}} | {patchId, remove: true} | {add: patch}], {time?, title?, summary?, kind?}?)
world.slice.delete(sliceId)`;

/** The model-facing description of execute_world for one access level. */
export function worldToolDescription(access: WorldAccess): string {
  const seconds = WORLD_SCRIPT_TIMEOUT_MS[access] / 1000;
  const intro = `Run JavaScript against the World Engine of this project (the time-sliced state of characters, places, factions, items). \`code\` is the body of a function: \`return\` the result — preferably a short human-readable string; other values come back as JSON (at most 10 KiB). Everything is synchronous. Time is an integer count of seconds; convert calendar strings with world.time.parse/format. console.log output is returned too. The script runs in an isolated sandbox (no require, process, fetch or timers) for at most ${seconds} s.`;
  if (access === "readonly") {
    return `${intro}
Your access is READ-ONLY: you can look the world up but never change it.

${READ_API}`;
  }
  return `${intro}
The whole script is one transaction: if it throws or times out, nothing it wrote is kept. A failed write call that you catch leaves no partial change. In a read-only session mode the script first runs as a dry run and the user approves its writes: the approved run keeps them only if it makes exactly the same writes (Date.now(), new Date() and Math.random repeat the dry run's values), otherwise it fails with conflict and stores nothing.

${READ_API}
${WRITE_API}`;
}
