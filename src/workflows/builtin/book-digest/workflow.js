// Book digest: split a manuscript (chapter folders) or one long Markdown book into chapters,
// summarise each with its own agent (bounded fan-out), and have a writer put the digest file
// under lorebook/.
export const title = "Book digest";
export const description =
  "Splits a manuscript (its chapter folders) or an imported Markdown book (on its headings) into chapters, summarises each in parallel, and writes a digest with one section per chapter under lorebook/.";
export const whenToUse =
  "When you need a compact, reliable overview of a long manuscript or of a book you imported, e.g. before planning or to refresh canon.";
export const phases = [
  { key: "read", title: "Read and split" },
  { key: "summarise", title: "Chapter summaries" },
  { key: "write", title: "Digest file" },
];
export const args = {
  type: "object",
  properties: {
    source: {
      type: "string",
      minLength: 1,
      default: "manuscript",
      description: "a manuscript folder (one subfolder per chapter with index.md) or a Markdown file",
    },
    output: { type: "string", pattern: "^lorebook/.+\\.md$", default: "lorebook/digest.md" },
    maxChapters: { type: "integer", minimum: 1, maximum: 60, default: 30 },
    concurrency: { type: "integer", minimum: 1, maximum: 6, default: 3 },
  },
  additionalProperties: false,
};

const SUMMARY = {
  type: "object",
  properties: {
    summary: { type: "string" },
    events: { type: "array", items: { type: "string" } },
    characters: { type: "array", items: { type: "string" } },
  },
  required: ["summary", "events", "characters"],
};

const MAX_CHAPTER_CHARS = 8000;

/** Split one Markdown book on its headings (# to ###); text before the first heading is a preface. */
function splitBook(text) {
  const parts = [];
  let current = null;
  for (const line of text.split("\n")) {
    const m = /^#{1,3}\s+(.+)$/.exec(line);
    if (m) {
      current = { title: m[1].trim(), lines: [] };
      parts.push(current);
    } else if (current) current.lines.push(line);
  }
  return parts.map((p) => ({ title: p.title, text: p.lines.join("\n").trim() })).filter((p) => p.text);
}

async function chaptersOf(wf, source) {
  if (source.endsWith(".md")) return splitBook(await wf.workspace.read(source));
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

export default async function run(wf, args) {
  wf.progress({ phase: "read", done: 0, total: 1 });
  const all = await chaptersOf(wf, args.source);
  if (!all.length) throw new Error(`${args.source} has no chapters to digest (it is empty)`);
  const chapters = all.slice(0, args.maxChapters);
  let done = 0;
  wf.progress({ phase: "summarise", done, total: chapters.length });
  const summaries = await wf.map(
    chapters,
    async (ch, i) => {
      const agent = await wf.agents.create("adhoc", {
        title: `digest: ${ch.title}`,
        ephemeral: true,
        initial: {
          name: "chapter summariser",
          systemPrompt:
            "You summarise one chapter of a novel faithfully: what happens, in order, and who is involved. No judgement, no invention.",
          outputSchema: SUMMARY,
        },
      });
      const r = await agent.invoke({
        message: `Chapter ${i + 1}: ${ch.title}\n\n${ch.text.slice(0, MAX_CHAPTER_CHARS)}`,
      });
      done += 1;
      wf.progress({ done });
      return { title: ch.title, ...r.data };
    },
    { concurrency: args.concurrency },
  );
  const digest = [
    `# Digest of ${args.source}`,
    "",
    `${chapters.length} chapter(s)${all.length > chapters.length ? ` of ${all.length}` : ""}.`,
    ...summaries.flatMap((s, i) => [
      "",
      `## ${i + 1}. ${s.title}`,
      "",
      s.summary,
      "",
      ...s.events.map((e) => `- ${e}`),
      "",
      `Characters: ${s.characters.join(", ") || "—"}`,
    ]),
    "",
  ].join("\n");
  wf.progress({ phase: "write", done: 0, total: 1 });
  const writer = await wf.agents.create("writer", {
    title: `digest writer: ${args.output}`,
    ephemeral: true,
  });
  await writer.invoke({
    message: `Write the following digest into ${args.output} exactly as given (it is generated; do not change it):\n\n${digest}`,
    input: { path: args.output },
  });
  wf.progress({ done: 1 });
  return {
    source: args.source,
    output: args.output,
    chapterCount: chapters.length,
    totalChapters: all.length,
    summaries,
  };
}
