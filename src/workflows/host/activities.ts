import { statSync } from "node:fs";
import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { toPointer } from "../../core/json-pointer.js";
import { looksBinary } from "../../core/text.js";
import { formatFieldErrors, parseOrThrow, zodFieldErrors } from "../../core/validate.js";
import { listFolderWithin } from "../../workspace/anchored-fs.js";
import { resolveFileAddress } from "../../workspace/paths.js";
import type { Project } from "../../workspace/project.js";
import { readFileSafeSync } from "../../workspace/safe-read.js";
import type { Workspace } from "../../workspace/workspace.js";
import { runWorldScript } from "../../world/script/run.js";
import { argsSchema } from "../args.js";
import type { ActivityContext, ActivityHost, ActivityOutcome } from "../engine/activity-host.js";
import type { RunRecord, WorkflowStore } from "../store/index.js";
import type { AgentPort } from "./agent-port.js";
import type { ToolPort } from "./tool-port.js";

/** The largest file wf.workspace.read returns. */
const MAX_READ_BYTES = 2 * 1024 * 1024;

const Initial = z.record(z.string(), z.unknown());
const Model = z.string().min(1);

const CreateParams = z
  .object({
    profileKey: z.string().min(1),
    initial: Initial.optional(),
    title: z.string().min(1).optional(),
    ephemeral: z.boolean().optional(),
    model: Model.optional(),
  })
  .strict();
const AcquireParams = z
  .object({
    profileKey: z.string().min(1),
    tag: z.string().regex(/^[A-Za-z0-9_.:-]{1,80}$/, "letters, digits and _.:- only"),
    initial: Initial.optional(),
    title: z.string().min(1).optional(),
    model: Model.optional(),
  })
  .strict();
const InvokeParams = z
  .object({
    sessionId: z.string().min(1),
    // A blocking call on an idle agent: a new prompt, or continuing where it stopped.
    mode: z.enum(["prompt", "continue"]).optional(),
    message: z.string().min(1).optional(),
    input: Initial.optional(),
    model: Model.optional(),
  })
  .strict();
const TranscriptParams = z
  .object({ sessionId: z.string().min(1), tail: z.number().int().min(1).max(200).optional() })
  .strict();
const AppendParams = z.object({ sessionId: z.string().min(1), text: z.string().min(1) }).strict();
const ReadParams = z.object({ path: z.string().min(1) }).strict();
const BriefParams = z.object({ chapterId: z.number().int().min(1) }).strict();
const QueryParams = z.object({ code: z.string().min(1) }).strict();
const ToolParams = z.object({ name: z.string().min(1), input: z.unknown() }).strict();

function params<S extends z.ZodType>(schema: S, value: unknown, kind: string): z.infer<S> {
  return parseOrThrow(schema, value, `${kind} parameters`);
}

/** An adhoc agent's output schema, compiled; `invalid_input` when it is not a usable JSON Schema. */
function outputSchemaOf(
  profileKey: string,
  initial: Record<string, unknown>,
): Record<string, unknown> | null {
  const schema = initial.outputSchema;
  if (profileKey !== "adhoc" || schema === undefined) return null;
  try {
    argsSchema(schema as Record<string, unknown>);
  } catch (e) {
    throw new NbError(
      "invalid_input",
      `initial.outputSchema is not a usable JSON Schema: ${(e as Error).message}`,
      {
        fields: [{ pointer: "/initial/outputSchema", message: (e as Error).message }],
      },
    );
  }
  return schema as Record<string, unknown>;
}

/**
 * Tell an agent with an output schema how to report: report_result's `data` is typed by the schema
 * (the adhoc profile takes it from `initial.outputSchema`), and the host checks it again.
 */
function withReportingRule(
  initial: Record<string, unknown>,
  schema: Record<string, unknown>,
): Record<string, unknown> {
  const rule = `\n\nWhen you are done, call report_result once with a one-line \`result\` and \`data\` matching this JSON Schema:\n${JSON.stringify(schema)}`;
  return { ...initial, systemPrompt: `${String(initial.systemPrompt ?? "")}${rule}` };
}

/** The structured output of an invocation: its data, else its result text as JSON (a model that put it there). */
function reported(data: unknown, finalMessage: string): unknown {
  if (data !== null && data !== undefined) return data;
  const text = finalMessage.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, "$1");
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Check an agent's reported data against its output schema (data is then required). */
function checkOutput(sessionId: string, schema: Record<string, unknown>, data: unknown): void {
  const r = data === null || data === undefined ? null : argsSchema(schema).safeParse(data);
  if (r?.success) return;
  const fields = r
    ? zodFieldErrors(r.error).map((f) => ({ pointer: `/data${f.pointer}`, message: f.message }))
    : [{ pointer: "/data", message: "required (the agent reported no structured data)" }];
  throw new NbError(
    "invalid_input",
    `Agent ${sessionId} returned data that does not match its output schema:\n${formatFieldErrors(fields)}`,
    { fields },
  );
}

/** Text messages of a session's active path, oldest first. */
function transcriptOf(port: AgentPort, sessionId: string, tail: number) {
  const out: Array<{ role: "user" | "assistant"; text: string }> = [];
  for (const e of port.store.activePath(sessionId)) {
    if (e.kind === "user") out.push({ role: "user", text: e.data.text });
    else if (e.kind === "assistant" && e.data.text.trim()) out.push({ role: "assistant", text: e.data.text });
  }
  return out.slice(-tail);
}

/** The effects of workflow activities in one workspace (and project), over an agent port. */
export class WorkflowHost implements ActivityHost {
  constructor(
    private readonly deps: {
      workspace: Workspace;
      project: Project | null;
      store: WorkflowStore;
      port: AgentPort;
      tools: ToolPort;
    },
  ) {}

  async run(kind: string, raw: unknown, ctx: ActivityContext): Promise<ActivityOutcome> {
    const { run } = ctx;
    switch (kind) {
      case "agents.create":
        return { value: this.create(run, params(CreateParams, raw, kind)) };
      case "agents.acquire":
        return { value: this.acquire(run, params(AcquireParams, raw, kind)) };
      case "session.invoke":
        return this.invoke(run, params(InvokeParams, raw, kind), ctx.signal);
      case "session.transcript": {
        const p = params(TranscriptParams, raw, kind);
        this.deps.port.assertReachable(p.sessionId);
        return { value: transcriptOf(this.deps.port, p.sessionId, p.tail ?? 50) };
      }
      case "session.append": {
        const p = params(AppendParams, raw, kind);
        this.deps.port.assertReachable(p.sessionId);
        const e = this.deps.port.store.append(p.sessionId, {
          kind: "user",
          data: { text: p.text, intent: "prompt" },
        });
        return { value: { entryId: e.id } };
      }
      case "workspace.read":
        return { value: { text: this.read(params(ReadParams, raw, kind).path) } };
      case "workspace.list":
        return { value: await this.list(params(ReadParams, raw, kind).path) };
      case "plot.brief": {
        const p = params(BriefParams, raw, kind);
        const { openPlotContext, getChapterWriterBrief } = await import("../../plot/index.js");
        const pc = await openPlotContext(this.requireProject("wf.plot.brief"), "workflow");
        const b = getChapterWriterBrief(pc, p.chapterId);
        return { value: { chapterId: p.chapterId, status: b.status, markdown: b.markdown } };
      }
      case "world.query": {
        const p = params(QueryParams, raw, kind);
        const project = this.requireProject("wf.world.query");
        const r = await runWorldScript(project, p.code, { access: "readonly", signal: ctx.signal });
        return { value: { value: r.value, console: r.console } };
      }
      case "tools.call": {
        const p = params(ToolParams, raw, kind);
        return { value: await this.deps.tools.call(run, ctx.seq, p, ctx.signal) };
      }
      default:
        throw new NbError("unsupported", `Unknown workflow activity ${kind}`);
    }
  }

  /**
   * Archive the ephemeral participants of a run that completed. One that cannot be released (the
   * user archived or detached it already) does not undo the run's completion.
   */
  completed(run: RunRecord): void {
    for (const p of this.deps.store.participants(run.id)) {
      if (!p.ephemeral) continue;
      try {
        this.deps.port.release(p.sessionId);
      } catch {
        // Already gone from the caller's links: nothing left to release.
      }
    }
  }

  private create(run: RunRecord, p: z.infer<typeof CreateParams>) {
    const initial = p.initial ?? {};
    const outputSchema = outputSchemaOf(p.profileKey, initial);
    const created = this.deps.port.create({
      profileKey: p.profileKey,
      initial: outputSchema ? withReportingRule(initial, outputSchema) : initial,
      ...(p.title ? { title: p.title } : {}),
    });
    this.deps.store.addParticipant(run.id, {
      sessionId: created.sessionId,
      profileKey: created.profileKey,
      title: created.title,
      ephemeral: p.ephemeral === true,
      outputSchema,
      model: p.model ?? run.model,
      tag: null,
    });
    return created;
  }

  private acquire(run: RunRecord, p: z.infer<typeof AcquireParams>) {
    const key = {
      project: run.project ?? "",
      caller: run.callerSessionId ?? "",
      profileKey: p.profileKey,
      tag: p.tag,
    };
    const found = this.deps.store.tagged(key);
    let agent = found;
    if (found) {
      try {
        this.deps.port.assertReachable(found.sessionId);
        if (this.deps.port.store.session(found.sessionId).status === "archived") agent = null;
      } catch {
        agent = null;
      }
    }
    let created = false;
    if (!agent) {
      const initial = p.initial ?? {};
      const outputSchema = outputSchemaOf(p.profileKey, initial);
      const made = this.deps.port.create({
        profileKey: p.profileKey,
        initial: outputSchema ? withReportingRule(initial, outputSchema) : initial,
        title: p.title ?? `${p.profileKey} (${p.tag})`,
      });
      agent = { sessionId: made.sessionId, outputSchema, model: p.model ?? run.model };
      this.deps.store.setTagged(key, agent);
      created = true;
    }
    const session = this.deps.port.store.session(agent.sessionId);
    this.deps.store.addParticipant(run.id, {
      sessionId: agent.sessionId,
      profileKey: session.profileKey,
      title: session.title,
      ephemeral: false,
      outputSchema: agent.outputSchema,
      model: p.model ?? agent.model,
      tag: p.tag,
    });
    return { sessionId: agent.sessionId, profileKey: session.profileKey, title: session.title, created };
  }

  private async invoke(
    run: RunRecord,
    p: z.infer<typeof InvokeParams>,
    signal: AbortSignal,
  ): Promise<ActivityOutcome> {
    const who = this.deps.store.participant(run.id, p.sessionId);
    const model = p.model ?? who?.model ?? undefined;
    const r = await this.deps.port.invoke(
      {
        sessionId: p.sessionId,
        ...(p.mode ? { mode: p.mode } : {}),
        ...(p.message !== undefined ? { message: p.message } : {}),
        ...(p.input !== undefined ? { input: p.input } : {}),
        ...(model ? { model } : {}),
      },
      signal,
    );
    if (r.status === "waiting")
      throw new NbError(
        "conflict",
        `Agent ${p.sessionId} stopped for the user (${r.pending?.kind ?? "approval"} ${r.approvalId ?? ""}, ${r.pending?.tool ?? "a call"}); a workflow cannot wait on an agent's approval: settle it (nbook approve ${p.sessionId} ${r.approvalId ?? ""}) or run the agent in normal mode`,
      );
    if (r.status !== "completed")
      throw new NbError(
        r.status === "aborted"
          ? "aborted"
          : r.error?.code === "limit_exceeded"
            ? "limit_exceeded"
            : "internal",
        `Agent ${p.sessionId} ended ${r.status}: ${r.error?.message ?? (r.finalMessage || "no message")}`,
      );
    const data = who?.outputSchema ? reported(r.data, r.finalMessage) : (r.data ?? null);
    if (who?.outputSchema) checkOutput(p.sessionId, who.outputSchema, data);
    const inputTokens = r.stats?.inputTokens ?? 0;
    const outputTokens = r.stats?.outputTokens ?? 0;
    return {
      value: {
        status: r.status,
        sessionId: p.sessionId,
        message: r.finalMessage,
        data,
        usage: { inputTokens, outputTokens },
      },
      tokens: inputTokens + outputTokens,
    };
  }

  private requireProject(what: string): Project {
    if (!this.deps.project) throw new NbError("invalid_input", `${what} needs a project (the run has none)`);
    return this.deps.project;
  }

  /** The entries of a project folder, sorted by name: `{name, path, kind}`. */
  private async list(path: string): Promise<Array<{ name: string; path: string; kind: "file" | "folder" }>> {
    const project = this.requireProject("wf.workspace.list");
    const r = resolveFileAddress(this.deps.workspace, project, path);
    if (!statSync(r.abs, { throwIfNoEntry: false })?.isDirectory())
      throw new NbError("not_found", `No folder ${path}`);
    const base = path.replace(/\/+$/, "");
    const entries = await listFolderWithin({
      abs: r.abs,
      root: r.project.realRoot,
      rootName: "the project",
      label: r.display,
    });
    return entries
      .filter((d) => !d.name.startsWith(".") && (d.isFile() || d.isDirectory()))
      .map((d) => ({
        name: d.name,
        path: `${base}/${d.name}`,
        kind: d.isDirectory() ? ("folder" as const) : ("file" as const),
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private read(path: string): string {
    const project = this.requireProject("wf.workspace.read");
    const r = resolveFileAddress(this.deps.workspace, project, path);
    const missing = () =>
      new NbError("not_found", `No file ${path}`, {
        fields: [{ pointer: toPointer(["path"]), message: "no such file" }],
      });
    // By name only to tell a folder; the file is read through the descriptor it was opened on,
    // which must still be a regular file inside the project (it may have changed since the check).
    if (statSync(r.abs, { throwIfNoEntry: false })?.isDirectory()) throw missing();
    const buf = readFileSafeSync(r.abs, {
      label: r.display,
      root: r.project.realRoot,
      maxBytes: MAX_READ_BYTES,
    });
    if (buf === null) throw missing();
    if (looksBinary(buf)) throw new NbError("unsupported", `${path} is a binary file`);
    return buf.toString("utf8");
  }
}
