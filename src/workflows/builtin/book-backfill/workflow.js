// Book backfill: read an imported book chapter by chapter (one reader agent a chapter, bounded
// fan-out) and PROPOSE its canon — lorebook entries, plot rows, World Engine facts — as batches the
// user approves or rejects. An approved batch's proposals are written one at a time by fixed tool
// calls (wf.tools.call, no model), so exactly those entries are written; a rejected batch reaches
// nothing. Nothing is written before an approval.
export const title = "Book backfill";
export const description =
  "Reads a manuscript chapter by chapter and proposes lorebook entries (characters, places, rules), plot rows (chapter briefs, threads, scenes, promises) and World Engine facts, in batches the user approves; only approved batches are written.";
export const whenToUse =
  "After importing an existing manuscript (nbook import), to build its canon: the lorebook, the plot and the world state, with the user reviewing every proposal.";
export const phases = [
  { key: "read", title: "Read the chapters" },
  { key: "propose", title: "Proposals per chapter" },
  { key: "review", title: "User review in batches" },
  { key: "write", title: "Write approved proposals" },
];
export const args = {
  type: "object",
  properties: {
    source: {
      type: "string",
      minLength: 1,
      default: "manuscript",
      description: "the manuscript folder (one subfolder per chapter with index.md)",
    },
    maxChapters: { type: "integer", minimum: 1, maximum: 200, default: 60 },
    concurrency: { type: "integer", minimum: 1, maximum: 6, default: 3 },
    batchSize: { type: "integer", minimum: 1, maximum: 50, default: 10 },
  },
  additionalProperties: false,
};

const SLUG = "^[a-z0-9]+(?:-[a-z0-9]+)*$";
const PROPOSALS = {
  type: "object",
  properties: {
    lorebook: {
      type: "array",
      items: {
        type: "object",
        properties: {
          category: { enum: ["characters", "places", "rules"] },
          name: { type: "string", pattern: SLUG },
          title: { type: "string", minLength: 1 },
          text: { type: "string", minLength: 1 },
        },
        required: ["category", "name", "title", "text"],
      },
    },
    plot: {
      type: "array",
      items: {
        type: "object",
        properties: {
          kind: { enum: ["chapter-brief", "thread", "scene", "promise"] },
          name: { type: "string", pattern: SLUG },
          title: { type: "string", minLength: 1 },
          summary: { type: "string", minLength: 1 },
          thread: { type: "string", pattern: SLUG, description: "for a scene: the name of its thread" },
        },
        required: ["kind", "name", "title", "summary"],
      },
    },
    world: {
      type: "array",
      items: {
        type: "object",
        properties: {
          subjectId: { type: "string", pattern: SLUG },
          type: { type: "string", minLength: 1 },
          name: { type: "string", minLength: 1 },
          time: { type: "string", minLength: 1, description: "a time in the project's calendar" },
          facts: { type: "object" },
        },
        required: ["subjectId", "type", "name", "time", "facts"],
      },
    },
  },
  required: ["lorebook", "plot", "world"],
};

const MAX_CHAPTER_CHARS = 12000;

const READER_PROMPT =
  "You read one chapter of a novel and propose its canon, taking only what the text states: lorebook entries (characters, places, rules of the world) with a short factual text; plot rows (the chapter's brief as it was written, threads it carries, scenes, reader promises it plants or pays off); World Engine facts (a subject's state at the chapter's story time, in the project's calendar). Propose nothing the chapter does not support. Names are lowercase slugs.";

async function chaptersOf(wf, source) {
  const entries = await wf.workspace.list(source);
  const chapters = [];
  for (const e of entries.filter((x) => x.kind === "folder")) {
    const text = (await wf.workspace.read(`${e.path}/index.md`)).trim();
    const heading = /^#{1,3}\s+(.+)$/m.exec(text);
    if (text)
      chapters.push({ title: heading ? heading[1].trim() : e.name, path: `${e.path}/index.md`, text });
  }
  return chapters;
}

/** Each proposal once (by what it names), with an id and the chapter it came from. */
function collect(results) {
  const seen = new Set();
  const out = [];
  for (const r of results) {
    const add = (type, key, label, item) => {
      if (seen.has(`${type}:${key}`)) return;
      seen.add(`${type}:${key}`);
      out.push({ id: `${type}-${out.length + 1}`, type, chapter: r.chapter, label, item });
    };
    for (const l of r.data.lorebook)
      add("lorebook", `${l.category}/${l.name}`, `lorebook/${l.category}/${l.name}: ${l.title}`, l);
    for (const p of r.data.plot) add("plot", `${p.kind}/${p.name}`, `${p.kind} ${p.name}: ${p.title}`, p);
    for (const w of r.data.world) add("world", `${w.subjectId}@${w.time}`, `${w.name} at ${w.time}`, w);
  }
  return out;
}

function batchesOf(items, size) {
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** A proposal that cannot be written as it stands (the user sees why in the run's result). */
function refused(message) {
  return Object.assign(new Error(message), { code: "invalid_input" });
}

/** The project-relative file of a lorebook entry. */
const lorePath = (l) => `lorebook/${l.category}/${l.name}/index.md`;

/** Every row of a plot list tool (get_story_* without an id), following its cursor. */
async function rowsOf(wf, tool, input) {
  const rows = [];
  let cursor;
  do {
    const page = (await wf.tools.call(tool, { ...input, limit: 100, ...(cursor ? { cursor } : {}) })).details;
    rows.push(...page.rows);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

async function writeLore(wf, l) {
  await wf.tools.call("write", { path: lorePath(l), content: `# ${l.title}\n\n${l.text.trim()}\n` });
  return { path: lorePath(l) };
}

/** Create the plot row named, or update the one of that name: a repeated write changes nothing. */
async function upsert(wf, tool, idKey, found, fields, createOnly) {
  const r = found
    ? await wf.tools.call(tool, { action: "update", [idKey]: found.id, ...fields })
    : await wf.tools.call(tool, { action: "create", ...createOnly, ...fields });
  return { [idKey]: found ? found.id : r.details.id, created: !found };
}

async function writePlot(wf, p, chapter) {
  const named = (rows) => rows.find((r) => r.name === p.name) ?? null;
  if (p.kind === "thread") {
    const found = named(await rowsOf(wf, "get_story_thread", { includeArchived: true }));
    return upsert(
      wf,
      "save_story_thread",
      "threadId",
      found,
      { title: p.title, summary: p.summary },
      { name: p.name },
    );
  }
  if (p.kind === "promise") {
    const found = named(await rowsOf(wf, "get_story_promise", {}));
    return upsert(
      wf,
      "save_story_promise",
      "promiseId",
      found,
      { title: p.title, summary: p.summary },
      { name: p.name },
    );
  }
  const chapters = await rowsOf(wf, "get_story_chapter", { includeArchived: true });
  // The imported chapter's plot row has the folder's name without its number.
  const folder = chapter.split("/").slice(-2)[0].replace(/^\d+-/, "");
  const source = chapters.find((c) => c.name === folder);
  if (p.kind === "chapter-brief") {
    const found = named(chapters) ?? source ?? null;
    return upsert(
      wf,
      "save_story_chapter",
      "chapterId",
      found,
      { title: p.title, brief: { goal: p.summary } },
      { name: p.name },
    );
  }
  if (!p.thread) throw refused(`scene ${p.name} names no thread (a scene belongs to one)`);
  const thread = (await rowsOf(wf, "get_story_thread", { includeArchived: true })).find(
    (t) => t.name === p.thread,
  );
  if (!thread) throw refused(`scene ${p.name}: no thread named ${p.thread}`);
  const scenes = await rowsOf(wf, "get_story_scene_context", { threadId: thread.id });
  const found = scenes.find((s) => s.title === p.title) ?? null;
  return upsert(
    wf,
    "save_story_scene",
    "sceneId",
    found,
    { title: p.title, summary: p.summary },
    {
      threadId: thread.id,
      ...(source ? { chapterId: source.id } : {}),
    },
  );
}

/** A World Engine script that writes the facts that differ at the proposal's time (none: nothing). */
function worldScript(w) {
  return `const id = ${JSON.stringify(w.subjectId)}, facts = ${JSON.stringify(w.facts)};
const t = world.time.parse(${JSON.stringify(w.time)});
const now = world.subject.get(id, { at: t });
const pointer = (k) => "/" + k.replace(/~/g, "~0").replace(/\\//g, "~1");
const patches = Object.keys(facts)
  .filter((k) => now === null || JSON.stringify(now[k]) !== JSON.stringify(facts[k]))
  .map((k) => ({ subjectId: id, path: pointer(k), op: "replace", value: facts[k] }));
if (!patches.length) return { instant: t, patches: 0 };
if (now === null) Object.assign(patches[0], { type: ${JSON.stringify(w.type)}, name: ${JSON.stringify(w.name)} });
const r = world.slice.write({ time: t, title: ${JSON.stringify(`Backfill: ${w.name}`)}, merge: true, patches });
return { sliceId: r.sliceId, instant: r.instant, patches: patches.length };`;
}

async function writeWorld(wf, w) {
  const r = await wf.tools.call("execute_world", { code: worldScript(w) });
  return r.details.data;
}

/** Write one approved proposal through its tool; what it wrote, or why it could not. */
async function apply(wf, p) {
  try {
    const wrote =
      p.type === "lorebook"
        ? await writeLore(wf, p.item)
        : p.type === "plot"
          ? await writePlot(wf, p.item, p.chapter)
          : await writeWorld(wf, p.item);
    return { ok: true, id: p.id, wrote };
  } catch (e) {
    return { ok: false, id: p.id, error: { code: e.code ?? "internal", message: e.message } };
  }
}

export default async function run(wf, args) {
  wf.progress({ phase: "read", done: 0, total: 1 });
  const all = await chaptersOf(wf, args.source);
  if (!all.length) throw new Error(`${args.source} has no chapters to backfill (it is empty)`);
  const chapters = all.slice(0, args.maxChapters);
  let done = 0;
  wf.progress({ phase: "propose", done, total: chapters.length });
  const results = await wf.map(
    chapters,
    async (ch, i) => {
      const agent = await wf.agents.create("adhoc", {
        title: `backfill: ${ch.title}`,
        ephemeral: true,
        initial: { name: "canon reader", systemPrompt: READER_PROMPT, outputSchema: PROPOSALS },
      });
      const r = await agent.invoke({
        message: `Chapter ${i + 1} (${ch.path}): ${ch.title}\n\n${ch.text.slice(0, MAX_CHAPTER_CHARS)}`,
      });
      done += 1;
      wf.progress({ done });
      return { chapter: ch.path, data: r.data };
    },
    { concurrency: args.concurrency },
  );
  const proposals = collect(results);
  const batches = batchesOf(proposals, args.batchSize);
  wf.progress({ phase: "review", done: 0, total: batches.length });
  // Every batch is asked at once: the user reviews them together and answers each.
  const verdicts = await Promise.all(
    batches.map((batch, i) =>
      wf.ask({
        kind: "approve",
        key: `batch-${i + 1}`,
        title: `Backfill batch ${i + 1} of ${batches.length}: ${batch.length} proposal(s)`,
        description: batch.map((p) => `- [${p.id}] ${p.label} (${p.chapter})`).join("\n"),
      }),
    ),
  );
  const approved = batches.filter((_, i) => verdicts[i] === true).flat();
  wf.progress({ phase: "write", done: 0, total: approved.length });
  // One proposal at a time, in order: a failed one is reported and the others still written.
  const outcomes = [];
  for (const p of approved) {
    outcomes.push(await apply(wf, p));
    wf.progress({ done: outcomes.length });
  }
  return {
    chapters: chapters.length,
    proposals: proposals.length,
    batches: batches.map((b, i) => ({
      key: `batch-${i + 1}`,
      approved: verdicts[i] === true,
      ids: b.map((p) => p.id),
    })),
    written: outcomes.filter((o) => o.ok).map((o) => o.id),
    wrote: outcomes.filter((o) => o.ok).map((o) => ({ id: o.id, ...o.wrote })),
    failed: outcomes.filter((o) => !o.ok).map((o) => ({ id: o.id, ...o.error })),
  };
}
