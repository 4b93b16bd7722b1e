import { type Change, ChangeSchema } from "./schema.js";

/**
 * A history commit's message: the change's summary, then trailers carrying the rest of its index
 * row, so standard git tools show who made it and `nbook history repair` can rebuild the index.
 */
export function commitMessage(c: Change): string {
  const trailers: [string, string | null][] = [
    ["Change-Id", c.id],
    ["Time", c.time],
    ["Actor", c.actor],
    ["Session", c.session],
    ["Profile", c.profile],
    ["Tool", c.tool],
    ["Call-Id", c.callId],
    ["Turn", c.turn],
    ["Reverts", c.reverts?.join(" ") ?? null],
  ];
  const lines = trailers.filter(([, v]) => v !== null).map(([k, v]) => `${k}: ${oneLine(v as string)}`);
  return `${oneLine(c.summary) || "(no summary)"}\n\n${lines.join("\n")}\n`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The change a commit message describes (with this commit and paths), or null for a foreign commit. */
export function parseCommitMessage(message: string, commit: string, paths: string[]): Change | null {
  const [summary, ...rest] = message.split("\n");
  const t = new Map<string, string>();
  for (const line of rest) {
    const m = /^([A-Za-z-]+): (.*)$/.exec(line);
    if (m) t.set(m[1], m[2]);
  }
  const parsed = ChangeSchema.safeParse({
    id: t.get("Change-Id"),
    time: t.get("Time"),
    actor: t.get("Actor"),
    session: t.get("Session") ?? null,
    profile: t.get("Profile") ?? null,
    tool: t.get("Tool") ?? null,
    callId: t.get("Call-Id") ?? null,
    turn: t.get("Turn") ?? null,
    targets: paths,
    summary,
    commit,
    reverts: t.get("Reverts")?.split(" ") ?? null,
  });
  return parsed.success ? parsed.data : null;
}
