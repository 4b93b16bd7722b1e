// Continuity check: for each chapter, compare the prose with the World Engine state at its scenes'
// times and the plot's promises (the chapter's writer brief), and report contradictions with
// quotes. It writes nothing: the leader decides what to fix.
export const title = "Continuity check";
export const description =
  "For a range of chapters, compares what the manuscript says with the World Engine state at each scene's time and the plot's promise tasks (from each chapter's writer brief), and reports contradictions with quotes. Writes nothing.";
export const whenToUse =
  "After drafting or revising chapters, before committing canon: to catch places where the prose contradicts the world state or the plot.";
export const phases = [
  { key: "collect", title: "Chapters, briefs and world state" },
  { key: "check", title: "Per-chapter check" },
  { key: "report", title: "Report" },
];
export const args = {
  type: "object",
  properties: {
    chapters: {
      type: "array",
      minItems: 1,
      maxItems: 12,
      items: {
        type: "object",
        properties: {
          path: { type: "string", minLength: 1, description: "the chapter file" },
          chapterId: {
            type: "integer",
            minimum: 1,
            description: "its plot chapter (for scene times and promises)",
          },
        },
        required: ["path"],
        additionalProperties: false,
      },
    },
    concurrency: { type: "integer", minimum: 1, maximum: 6, default: 3 },
  },
  required: ["chapters"],
  additionalProperties: false,
};

const FINDINGS = {
  type: "object",
  properties: {
    contradictions: {
      type: "array",
      items: {
        type: "object",
        properties: {
          quote: { type: "string" },
          contradicts: { type: "string", enum: ["world", "plot"] },
          fact: { type: "string" },
          explanation: { type: "string" },
          severity: { type: "string", enum: ["major", "minor"] },
        },
        required: ["quote", "contradicts", "fact", "explanation", "severity"],
      },
    },
  },
  required: ["contradictions"],
};

const MAX_CHAPTER_CHARS = 10000;
const MAX_FACTS_CHARS = 8000;

// Without a plot chapter, the latest state of every subject stands in for "the world at that time".
const LATEST_WORLD = `
const out = [];
for (const s of world.subject.list()) {
  const attrs = world.subject.get(s.id);
  out.push(s.type + " " + s.id + " (" + s.name + "): " + JSON.stringify(attrs));
}
return out.join("\\n");`;

export default async function run(wf, args) {
  wf.progress({ phase: "collect", done: 0, total: args.chapters.length });
  let latest = null;
  const inputs = [];
  for (const ch of args.chapters) {
    const text = await wf.workspace.read(ch.path);
    let facts;
    if (ch.chapterId) facts = (await wf.plot.brief(ch.chapterId)).markdown;
    else {
      latest ??= (await wf.world.query(LATEST_WORLD)).value;
      facts = `World state (latest):\n${latest}`;
    }
    inputs.push({ ...ch, text, facts });
    wf.progress({ done: inputs.length });
  }
  let done = 0;
  wf.progress({ phase: "check", done, total: inputs.length });
  const checked = await wf.map(
    inputs,
    async (ch) => {
      const checker = await wf.agents.create("adhoc", {
        title: `continuity: ${ch.path}`,
        ephemeral: true,
        initial: {
          name: "continuity checker",
          systemPrompt:
            "You check a novel's chapter against the facts you are given (the world state at its scenes' times, the plot's promises). Report only real contradictions, each with the exact quote from the chapter.",
          outputSchema: FINDINGS,
        },
      });
      const r = await checker.invoke({
        message: `Facts:\n${String(ch.facts).slice(0, MAX_FACTS_CHARS)}\n\nChapter (${ch.path}):\n${ch.text.slice(0, MAX_CHAPTER_CHARS)}`,
      });
      done += 1;
      wf.progress({ done });
      // A quote the chapter does not contain is the checker's invention: it is dropped.
      const real = r.data.contradictions.filter((c) => c.quote && ch.text.includes(c.quote));
      return {
        path: ch.path,
        chapterId: ch.chapterId ?? null,
        contradictions: real,
        dropped: r.data.contradictions.length - real.length,
      };
    },
    { concurrency: args.concurrency },
  );
  wf.progress({ phase: "report", done: 1, total: 1 });
  const all = checked.flatMap((c) => c.contradictions.map((x) => ({ path: c.path, ...x })));
  return {
    chapters: checked,
    total: all.length,
    major: all.filter((c) => c.severity === "major").length,
    verdict:
      all.length === 0 ? "clean" : all.some((c) => c.severity === "major") ? "has-major" : "minor-only",
  };
}
