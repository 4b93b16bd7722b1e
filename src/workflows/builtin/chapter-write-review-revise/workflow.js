// Chapter write → review → revise: a writer drafts the chapter from its brief, reviewers return
// issues as structured data, the writer revises; it stops early once no major issue remains.
export const title = "Chapter: write, review, revise";
export const description =
  "A writer agent drafts a chapter from its brief into the chapter file; reviewer agents (one per focus, in parallel) return issues with a severity; the writer revises until no major issue remains or the rounds run out.";
export const whenToUse =
  "When a chapter should be drafted and polished in one go, with independent reviews between drafts.";
export const phases = [
  { key: "write", title: "First draft" },
  { key: "review", title: "Reviews" },
  { key: "revise", title: "Revision" },
  { key: "finalize", title: "Final check" },
];
export const args = {
  type: "object",
  properties: {
    chapterPath: {
      type: "string",
      minLength: 1,
      description: "the chapter file, e.g. manuscript/03-x/index.md",
    },
    brief: { type: "string", description: "what the chapter must do (or give chapterId)" },
    chapterId: { type: "string", description: "the plot chapter id, for the writer's brief" },
    lorebookEntries: { type: "array", items: { type: "string" }, default: [] },
    reviewers: {
      type: "array",
      items: { type: "string", minLength: 1 },
      minItems: 1,
      maxItems: 4,
      default: ["consistency", "pacing", "style"],
    },
    maxRounds: { type: "integer", minimum: 1, maximum: 3, default: 2 },
  },
  required: ["chapterPath"],
  additionalProperties: false,
};

const REVIEW = {
  type: "object",
  properties: {
    overall: { type: "string" },
    issues: {
      type: "array",
      items: {
        type: "object",
        properties: {
          severity: { type: "string", enum: ["major", "minor"] },
          problem: { type: "string" },
          revision: { type: "string" },
        },
        required: ["severity", "problem", "revision"],
      },
    },
  },
  required: ["overall", "issues"],
};

const MAX_REVIEW_CHARS = 12000;

export default async function run(wf, args) {
  if (!args.brief && !args.chapterId) throw new Error("Give the chapter's brief or its chapterId");
  const input = {
    path: args.chapterPath,
    ...(args.chapterId ? { chapterId: args.chapterId } : {}),
    ...(args.lorebookEntries.length ? { context: { lorebookEntries: args.lorebookEntries } } : {}),
  };
  wf.progress({ phase: "write", done: 0, total: 1 });
  const writer = await wf.agents.create("writer", { title: `writer: ${args.chapterPath}` });
  let last = await writer.invoke({
    message: args.brief
      ? `Write this chapter into ${args.chapterPath}.\n\nBrief:\n${args.brief}`
      : `Write chapter ${args.chapterId} into ${args.chapterPath} from its writer brief.`,
    input,
  });
  const rounds = [];
  let converged = false;
  for (let round = 1; round <= args.maxRounds; round++) {
    wf.progress({ phase: "review", done: 0, total: args.reviewers.length, note: `round ${round}` });
    const text = await wf.workspace.read(args.chapterPath);
    let reviewed = 0;
    const reviews = await wf.map(
      args.reviewers,
      async (focus) => {
        const reviewer = await wf.agents.create("adhoc", {
          title: `review (${focus}) round ${round}`,
          ephemeral: true,
          initial: {
            name: `${focus} reviewer`,
            systemPrompt: `You review a novel's chapter for ${focus} only. List concrete issues; mark an issue major only when the chapter cannot stand without fixing it.`,
            outputSchema: REVIEW,
          },
        });
        const r = await reviewer.invoke({
          message: `${args.brief ? `Brief:\n${args.brief}\n\n` : ""}Chapter (${args.chapterPath}):\n\n${text.slice(0, MAX_REVIEW_CHARS)}`,
        });
        reviewed += 1;
        wf.progress({ done: reviewed });
        return { focus, overall: r.data.overall, issues: r.data.issues };
      },
      { concurrency: 3 },
    );
    const issues = [];
    for (const r of reviews) for (const i of r.issues) issues.push({ focus: r.focus, ...i });
    const major = issues.filter((i) => i.severity === "major");
    rounds.push({ round, reviews, majorIssues: major.length, minorIssues: issues.length - major.length });
    if (!major.length) {
      converged = true;
      break;
    }
    if (round === args.maxRounds) break;
    wf.progress({ phase: "revise", done: 0, total: 1, note: `round ${round}` });
    const list = major.map((i, n) => `${n + 1}. [${i.focus}] ${i.problem}\n   Fix: ${i.revision}`).join("\n");
    last = await writer.invoke({
      message: `Revise ${args.chapterPath} to fix these major issues (keep what works):\n${list}`,
      input,
    });
  }
  wf.progress({ phase: "finalize", done: 1, total: 1 });
  const final = await wf.workspace.read(args.chapterPath);
  return {
    chapterPath: args.chapterPath,
    writerSessionId: writer.id,
    rounds,
    converged,
    finalSummary: last.data ? last.data.summary : last.message,
    finalLength: final.length,
  };
}
