import type { FieldError } from "../../core/errors.js";
import type { Approval, Entry, EntryOf, Session, Task } from "./schema.js";

/** One line of at most `max` characters: the first non-empty line of `text`. */
export function oneLine(text: string, max = 100): string {
  const line = text.split("\n").find((l) => l.trim() !== "") ?? "";
  const t = line.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** A short rendering of a tool input: its JSON, cut to one line. */
function inputSummary(input: unknown, max = 80): string {
  const json = JSON.stringify(input ?? {}) ?? "";
  return json.length > max ? `${json.slice(0, max - 1)}…` : json;
}

/** For each assistant entry, its calls paired with the result that answers each on this path (if any). */
function pairResults(path: readonly Entry[]): Map<string, Map<string, EntryOf<"tool_result">>> {
  const out = new Map<string, Map<string, EntryOf<"tool_result">>>();
  let current: Map<string, EntryOf<"tool_result">> | null = null;
  for (const e of path) {
    if (e.kind === "assistant") {
      current = new Map();
      out.set(e.id, current);
    } else if (e.kind === "tool_result" && current) current.set(e.data.callId, e);
  }
  return out;
}

function resultSummary(r: EntryOf<"tool_result"> | undefined): string {
  if (!r) return "… no result (pending)";
  if (r.data.ok) {
    const n = r.data.text.split("\n").length;
    return `ok${n > 1 ? ` (${n} lines)` : ""}: ${oneLine(r.data.text) || "(empty)"}`;
  }
  const e = r.data.error;
  return errorText(e?.code ?? "error", e?.message ?? r.data.text, e?.fields);
}

/**
 * An error whole: its message (continuation lines indented under the call) and every field's
 * pointer the message does not already give.
 */
function errorText(code: string, message: string, fields: readonly FieldError[] = []): string {
  const lines = message.trim().split("\n");
  const pointers = fields.map((f) => `${f.pointer || "/"}: ${f.message}`).filter((l) => !lines.includes(l));
  return `error [${code}]: ${[...lines, ...pointers].join("\n      ")}`;
}

function taskLine(tasks: Task[]): string {
  const mark: Record<Task["status"], string> = {
    pending: "[ ]",
    in_progress: "[~]",
    completed: "[x]",
    cancelled: "[-]",
  };
  return tasks.length ? tasks.map((t) => `${mark[t.status]} ${t.title}`).join(", ") : "(empty)";
}

function header(s: Session): string[] {
  return [
    `Session ${s.id}${s.title ? `: ${s.title}` : ""}`,
    `profile ${s.profileKey} · project ${s.project ?? "(workspace)"} · mode ${s.mode} · model ${s.model ?? "(default)"} · ${s.status}`,
    `created ${s.createdAt} · updated ${s.updatedAt} · ${s.entryCount} entries`,
  ];
}

/** The readable transcript of a session's active path (what `nbook sessions show` prints). */
export function renderTranscript(session: Session, path: Entry[]): string {
  return `${transcriptHeader(session)}${renderEntries(path)}`;
}

/** The header lines of a readable transcript, then a blank line. */
export function transcriptHeader(session: Session): string {
  return `${header(session).join("\n")}\n\n`;
}

/**
 * The readable lines of consecutive entries of a path. A call's result is found among `path`
 * only: give a step whole (as transcriptChunks does) for its calls to show their results.
 */
export function renderEntries(path: readonly Entry[]): string {
  if (!path.length) return "";
  const results = pairResults(path);
  const lines: string[] = [];
  for (const e of path) {
    switch (e.kind) {
      case "user":
        lines.push(
          e.data.intent === "system"
            ? `system: ${e.data.text}`
            : `user${e.data.intent === "prompt" ? "" : ` (${e.data.intent})`}: ${e.data.text}`,
        );
        break;
      case "assistant": {
        const status = e.data.status === "complete" ? "" : ` [${e.data.status}]`;
        if (e.data.text || status) lines.push(`assistant${status}: ${e.data.text}`);
        const paired = results.get(e.id);
        for (const c of e.data.toolCalls) {
          lines.push(`  → ${c.key} ${inputSummary(c.input)} — ${resultSummary(paired?.get(c.id))}`);
        }
        break;
      }
      case "tool_result":
        break;
      case "approval_request":
        lines.push(
          `  ! approval ${e.id} requested: ${e.data.key} — ${oneLine(e.data.preview.text) || "(no preview)"}`,
        );
        break;
      case "approval_decision":
        lines.push(
          `  ! approval ${e.data.approvalId} ${e.data.approved ? "approved" : "rejected"}${e.data.reason ? `: ${e.data.reason}` : ""}`,
        );
        break;
      case "user_input_request":
        lines.push(
          `  ? ${e.data.question}${e.data.choices?.length ? ` [${e.data.choices.join(" | ")}]` : ""}`,
        );
        break;
      case "user_input_answer":
        lines.push(`  ? answer: ${e.data.answer}`);
        break;
      case "mode_change":
        lines.push(
          `— mode ${e.data.from} → ${e.data.to} (by ${e.data.by}${e.data.reason ? `: ${e.data.reason}` : ""})`,
        );
        break;
      case "task_list":
        lines.push(`  tasks: ${taskLine(e.data.tasks)}`);
        break;
      case "compaction":
        // The whole summary: from here on it is all the model knows of the history before it.
        lines.push(
          `— history compacted; the summary the model now works from:`,
          ...e.data.summary.split("\n").map((l) => `  │ ${l}`),
        );
        break;
      case "run_start":
        lines.push(`— run ${e.data.runId} started (${e.data.invocation})`);
        break;
      case "run_end":
        lines.push(`— run ${e.data.runId} ${e.data.status}`);
        break;
      case "run_error":
        lines.push(`— run ${e.data.runId} error [${e.data.error.code}]: ${oneLine(e.data.error.message)}`);
        break;
    }
  }
  return `${lines.join("\n")}\n`;
}

function fence(text: string, lang = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = "`".repeat(longest + 1);
  return `${f}${lang}\n${text}\n${f}`;
}

function markdownEntry(e: Entry, results: Map<string, Map<string, EntryOf<"tool_result">>>): string | null {
  switch (e.kind) {
    case "user":
      if (e.data.intent === "system") return `## System (nbook)\n\n${e.data.text}`;
      return `## User${e.data.intent === "prompt" ? "" : ` (${e.data.intent})`}\n\n${e.data.text}`;
    case "assistant": {
      const parts = [`## Assistant${e.data.status === "complete" ? "" : ` (${e.data.status})`}`];
      if (e.data.text) parts.push(e.data.text);
      const paired = results.get(e.id);
      for (const c of e.data.toolCalls) {
        const r = paired?.get(c.id);
        const head = `### Tool call \`${c.key}\` (${c.id})`;
        const body = r
          ? `${r.data.ok ? "Result" : `Error [${r.data.error?.code ?? "error"}]`}:\n\n${fence(r.data.text)}`
          : "No result (pending).";
        parts.push(`${head}\n\n${fence(JSON.stringify(c.input ?? {}, null, 2), "json")}\n\n${body}`);
      }
      return parts.join("\n\n");
    }
    case "tool_result":
      return null;
    case "approval_request":
      return `> **Approval ${e.id} requested** for \`${e.data.key}\`\n\n${fence(e.data.preview.text, "diff")}`;
    case "approval_decision":
      return `> **Approval ${e.data.approvalId} ${e.data.approved ? "approved" : "rejected"}**${e.data.reason ? `: ${e.data.reason}` : ""}`;
    case "user_input_request":
      return `> **Question:** ${e.data.question}${e.data.choices?.length ? `\n> Choices: ${e.data.choices.join(" · ")}` : ""}`;
    case "user_input_answer":
      return `> **Answer:** ${e.data.answer}`;
    case "mode_change":
      return `*Mode ${e.data.from} → ${e.data.to} (by ${e.data.by}${e.data.reason ? `: ${e.data.reason}` : ""})*`;
    case "task_list":
      return `**Tasks:** ${taskLine(e.data.tasks)}`;
    case "compaction":
      return `*Earlier history compacted:*\n\n${e.data.summary}`;
    case "run_start":
      return null;
    case "run_end":
      return `*Run ${e.data.status}.*`;
    case "run_error":
      return `*Run error [${e.data.error.code}]: ${e.data.error.message}*`;
  }
}

/** Markdown export of the active path. */
export function exportMarkdown(session: Session, path: Entry[]): string {
  const results = pairResults(path);
  const [title, ...meta] = header(session);
  const blocks = [`# ${title}`, meta.join("  \n")];
  for (const e of path) {
    const md = markdownEntry(e, results);
    if (md) blocks.push(md);
  }
  return `${blocks.join("\n\n")}\n`;
}

/**
 * JSON Lines export, lossless: the session header, every entry of every branch (in append order,
 * with parent ids), then the approvals. One JSON object per line with a `type` field.
 */
export function exportJsonl(session: Session, entries: Entry[], approvals: Approval[]): string {
  const lines = [JSON.stringify({ type: "session", ...session })];
  for (const e of entries) lines.push(JSON.stringify({ type: "entry", ...e }));
  for (const a of approvals) lines.push(JSON.stringify({ type: "approval", ...a }));
  return `${lines.join("\n")}\n`;
}
