// Brainstorm: one throwaway agent per angle (in parallel, bounded), then a judge ranks the ideas.
export const title = "Brainstorm";
export const description =
  "Explores a question from several angles in parallel (one agent per angle, each returning structured ideas), then a judge agent merges and ranks them.";
export const whenToUse =
  "When you need many distinct options for a plot problem, a title, a twist or a scene, and want them compared and ranked.";
export const phases = [
  { key: "angles", title: "Ideas per angle" },
  { key: "judge", title: "Merge and rank" },
];
export const args = {
  type: "object",
  properties: {
    topic: { type: "string", minLength: 1, description: "What to brainstorm" },
    angles: {
      type: "array",
      items: { type: "string", minLength: 1 },
      minItems: 1,
      maxItems: 6,
      default: ["character", "conflict", "setting", "theme"],
    },
    ideasPerAngle: { type: "integer", minimum: 1, maximum: 5, default: 3 },
    concurrency: { type: "integer", minimum: 1, maximum: 6, default: 3 },
  },
  required: ["topic"],
  additionalProperties: false,
};

const IDEAS = {
  type: "object",
  properties: {
    ideas: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        properties: { idea: { type: "string" }, value: { type: "string" }, risk: { type: "string" } },
        required: ["idea", "value", "risk"],
      },
    },
  },
  required: ["ideas"],
};

const RANKING = {
  type: "object",
  properties: {
    ranking: {
      type: "array",
      items: {
        type: "object",
        properties: { id: { type: "string" }, score: { type: "number" }, why: { type: "string" } },
        required: ["id", "score", "why"],
      },
    },
    recommendation: { type: "string" },
  },
  required: ["ranking", "recommendation"],
};

export default async function run(wf, args) {
  const angles = args.angles.filter((a, i) => args.angles.indexOf(a) === i);
  let done = 0;
  wf.progress({ phase: "angles", done, total: angles.length });
  const perspectives = await wf.map(
    angles,
    async (angle) => {
      const agent = await wf.agents.create("adhoc", {
        title: `brainstorm: ${angle}`,
        ephemeral: true,
        initial: {
          name: `${angle} brainstormer`,
          systemPrompt: `You brainstorm for a novelist, strictly from the angle of ${angle}. Be concrete and specific to the book.`,
          outputSchema: IDEAS,
        },
      });
      const r = await agent.invoke({
        message: `Topic: ${args.topic}\nAngle: ${angle}\nGive ${args.ideasPerAngle} distinct ideas, each with its value for the story and its risk. Report them with report_result.`,
      });
      done += 1;
      wf.progress({ done });
      return { angle, ideas: r.data.ideas.slice(0, args.ideasPerAngle) };
    },
    { concurrency: args.concurrency },
  );

  const candidates = [];
  perspectives.forEach((p, i) => {
    p.ideas.forEach((idea, j) => {
      candidates.push({ id: `${i + 1}.${j + 1}`, angle: p.angle, ...idea });
    });
  });
  wf.progress({ phase: "judge", done: 0, total: 1 });
  const judge = await wf.agents.create("adhoc", {
    title: "brainstorm: judge",
    ephemeral: true,
    initial: {
      name: "judge",
      systemPrompt:
        "You judge brainstormed ideas for a novel: rank them by how much they would strengthen the book, and say why.",
      outputSchema: RANKING,
    },
  });
  const verdict = await judge.invoke({
    message: `Topic: ${args.topic}\nRank these candidates (use their ids):\n${JSON.stringify(candidates, null, 2)}`,
  });
  const byId = {};
  for (const c of candidates) byId[c.id] = c;
  const ranking = verdict.data.ranking
    .filter((r) => byId[r.id])
    .map((r) => ({ ...byId[r.id], score: r.score, why: r.why }));
  wf.progress({ done: 1 });
  return { topic: args.topic, angles, perspectives, ranking, recommendation: verdict.data.recommendation };
}
