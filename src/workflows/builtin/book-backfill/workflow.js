// Book backfill: read an imported book chapter by chapter (one reader agent a chapter, bounded
// fan-out) and PROPOSE its canon — lorebook entries, plot rows, World Engine facts — as batches the
// user approves or rejects; only an approved batch is handed to a writing agent, with exactly its
// proposals. Nothing is written before an approval.
export const title = "Book backfill";
export const description =
  "Reads a manuscript chapter by chapter and proposes lorebook entries (characters, places, rules), plot rows (chapter briefs, threads, scenes, promises) and World Engine facts, in batches the user approves; only approved batches are written.";
export const whenToUse =
  "After importing an existing manuscript (nbook import), to build its canon: the lorebook, the plot and the world state, with the user reviewing every proposal.";
export const phases = [
  { key: "read", title: "Read the chapters" },
  { key: "propose", title: "Proposals per chapter" },
  { key: "review", title: "User review in batches" },
  { key: "write", title: "Write approved batches" },
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

const WRITER_RULES = `Write exactly the proposals below — each one, and nothing else — through your tools:
- lorebook: write lorebook/<category>/<name>/index.md with "# <title>" then the text;
- plot: save_story_chapter (brief of the chapter named), save_story_thread, save_story_scene or save_story_promise with action "create" (or "update" when the row exists);
- world: one execute_world script writing a slice at the proposal's time with the subject's facts as patches.
Then say which ids you wrote.`;

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
  const approved = batches.filter((_, i) => verdicts[i] === true);
  wf.progress({ phase: "write", done: 0, total: approved.length });
  const written = [];
  for (const [n, batch] of approved.entries()) {
    const writer = await wf.agents.create("leader.default", {
      title: `backfill writer: batch ${n + 1}`,
      ephemeral: true,
    });
    await writer.invoke({
      message: `${WRITER_RULES}\n\n${JSON.stringify(
        batch.map((p) => ({ id: p.id, type: p.type, ...p.item })),
        null,
        2,
      )}`,
    });
    written.push(...batch.map((p) => p.id));
    wf.progress({ done: n + 1 });
  }
  return {
    chapters: chapters.length,
    proposals: proposals.length,
    batches: batches.map((b, i) => ({
      key: `batch-${i + 1}`,
      approved: verdicts[i] === true,
      ids: b.map((p) => p.id),
    })),
    written,
  };
}
