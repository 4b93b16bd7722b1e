import { z } from "zod";
import { invocationPayload, invocationText } from "../../collab/payload.js";
import { NbError } from "../../core/errors.js";
import { fenceUntrusted } from "../../core/untrusted.js";
import { MODEL_REF } from "../../models/reference.js";
import { inlineEditor } from "../../profiles/builtin/inline-editor.js";
import { authorize, readText } from "../../tools/files/common.js";
import type { ApiRoutes } from "../api.js";
import type { ServeHub } from "../hub.js";
import { MAX_ALTERNATIVES, parseAlternatives } from "../inline-alternatives.js";
import { InlineAlternativesSchema, InvocationSchema } from "../responses.js";
import { userContext } from "../user-context.js";
import { ProjectParams, sessionId } from "./common.js";
import { startRun } from "./sessions.js";

const PROFILE = inlineEditor.key;

/** What the author asks of a selection; `instruction` is the author's own (required) or an addition. */
const ACTIONS = {
  rewrite: { task: "rewrite", ask: "Rewrite the passage: the same events and meaning, better prose." },
  expand: { task: "expand", ask: "Expand the passage: more beats, detail and interiority, same events." },
  describe: {
    task: "expand",
    ask: "Describe more: add concrete sensory detail (sight, sound, smell, touch) to the passage.",
  },
  shorten: { task: "condense", ask: "Shorten the passage: keep what matters, cut the rest." },
  instruction: { task: "rewrite", ask: "Change the passage as the author's instruction says." },
} as const;

const InlineBody = z
  .object({
    path: z.string().min(1).max(1000).describe("the chapter (or other file) the selection is in"),
    selection: z.string().min(1, "required").max(20_000).describe("the selected text, exactly"),
    action: z.enum(Object.keys(ACTIONS) as [keyof typeof ACTIONS, ...(keyof typeof ACTIONS)[]]),
    instruction: z
      .string()
      .trim()
      .max(4000)
      .default("")
      .describe("the author's words (required for `instruction`)"),
    model: z.string().regex(MODEL_REF, "expected <providerId>/<modelId>").optional(),
  })
  .strict()
  .refine((b) => b.action !== "instruction" || b.instruction.length > 0, {
    path: ["instruction"],
    message: "required when the action is `instruction`",
  });

const InlineParams = ProjectParams.extend({ id: sessionId }).strict();

/** Where the selection is in the file: its lines when it occurs once, else how it matched. */
function locate(text: string, selection: string) {
  const at = text.indexOf(selection);
  if (at < 0) return { match: "unknown" as const };
  if (text.indexOf(selection, at + 1) >= 0) return { match: "ambiguous" as const };
  const startLine = text.slice(0, at).split("\n").length;
  return {
    match: "unique" as const,
    range: { startLine, endLine: startLine + selection.split("\n").length - 1 },
  };
}

/** The request the inline editor gets: the task, the selection (fenced: it is file text), the answer's form. */
function message(ask: string, instruction: string, path: string, selection: string, where: string): string {
  return [
    ask,
    instruction && `The author's instruction: ${instruction}`,
    `The passage, from ${path} (${where}); read the file for its context:`,
    fenceUntrusted("selection", selection),
    `Write ${MAX_ALTERNATIVES} alternatives to the passage as your reply, each between <alternative> and </alternative>, then call report_result with a one-line result. Do not edit or write any file: the author chooses an alternative and applies it.`,
  ]
    .filter(Boolean)
    .join("\n\n");
}

/** Inline AI: a selection's alternatives asked of the inline editor, and read back as it answers. */
export function registerInlineRoutes(routes: ApiRoutes, hub: ServeHub): void {
  routes.add(
    {
      method: "post",
      path: "/api/projects/:project/inline",
      tag: "sessions",
      response: InvocationSchema,
      summary:
        "Ask the inline editor for alternatives to a selection (a read-only session of inline.editor; it streams on the session's events)",
      params: ProjectParams,
      body: InlineBody,
      status: 202,
    },
    async (c, { params, body }) => {
      const project = hub.workspace.project(params.project);
      const file = authorize(userContext(hub, project), body.path, "read");
      const found = locate(await readText(file), body.selection);
      const action = ACTIONS[body.action];
      const harness = hub.harness(params.project);
      // Discuss mode: the session reads what it needs, and any write it tried would wait for an
      // approval the workbench never gives; the author applies the alternative chosen.
      const session = harness.createSession({
        profileKey: PROFILE,
        project: params.project,
        mode: "discuss",
        model: body.model,
        title: `Inline ${body.action}: ${file.display}`,
      });
      hub.events.publish("session_created", { session });
      const where =
        found.match === "unique"
          ? `lines ${found.range.startLine}–${found.range.endLine}`
          : found.match === "ambiguous"
            ? "it occurs more than once"
            : "not found as is in the saved file";
      // The payload travels in the message, as an agent's invocation carries it (collab/payload.ts):
      // it names the target file the profile's tools and its canon are bound to.
      const payload = invocationPayload(inlineEditor, {
        version: 1,
        task: action.task,
        targetPath: file.display,
        instruction: body.instruction || action.ask,
        references: [{ ref: "selection", path: file.display, ...found, text: body.selection }],
      });
      const text = invocationText(
        message(action.ask, body.instruction, file.display, body.selection, where),
        payload,
      );
      const status = await startRun(hub, () => harness.invoke(session.id, { mode: "prompt", message: text }));
      return c.json({ sessionId: session.id, status }, 202);
    },
  );

  routes.add(
    {
      method: "get",
      path: "/api/projects/:project/inline/:id",
      tag: "sessions",
      response: InlineAlternativesSchema,
      summary: "An inline request's state: running, and the alternatives of its answer once it ended",
      params: InlineParams,
    },
    (c, { params }) => {
      const { session, harness } = hub.sessionHarness(params.id);
      if (session.project !== params.project || session.profileKey !== PROFILE)
        throw new NbError("not_found", `No inline request ${params.id} in ${params.project}`);
      const running = harness.isRunning(session.id);
      // The newest entries hold the run's replies and its end (or error); a running request has none yet.
      const entries = running ? [] : hub.store.page(session.id, { limit: 50 }).entries;
      const run = entries.slice(entries.findLastIndex((e) => e.kind === "run_start") + 1);
      const end = run.findLast((e) => e.kind === "run_end");
      const failed = run.findLast((e) => e.kind === "run_error");
      const data = end?.kind === "run_end" ? end.data : undefined;
      // The alternatives are in the replies (as they streamed), or else in the reported result.
      const replies = run.map((e) => (e.kind === "assistant" ? e.data.text : "")).join("\n");
      const answer = `${replies}\n${data?.finalMessage ?? ""}`;
      return c.json({
        sessionId: session.id,
        running,
        status: data?.status ?? null,
        alternatives: parseAlternatives(answer).alternatives,
        error: failed?.kind === "run_error" ? failed.data.error.message : null,
      });
    },
  );
}
