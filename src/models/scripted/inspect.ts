import type { LanguageModelV3CallOptions, LanguageModelV3Message } from "@ai-sdk/provider";
import type { z } from "zod";
import { NbError } from "../../core/errors.js";
import type { ScriptedExpectSchema } from "./format.js";

type Expect = z.output<typeof ScriptedExpectSchema>;

/**
 * Check a turn's `expect` against the request; `conflict` naming the first mismatch. `where` names
 * the turn's section in a script with sections (e.g. ` (profiles.writer)`).
 */
export function checkExpectations(
  expect: Expect,
  options: LanguageModelV3CallOptions,
  index: number,
  where = "",
): void {
  const fail = (what: string, actual: string) => {
    throw new NbError(
      "conflict",
      `Scripted turn ${index + 1}${where}: expected ${what}, but got ${JSON.stringify(clip(actual))}`,
    );
  };
  const prompt = options.prompt;
  if (expect.system !== undefined) {
    const system = prompt
      .filter((m) => m.role === "system")
      .map((m) => m.content)
      .join("\n");
    if (!system.includes(expect.system))
      fail(`the system prompt to contain ${JSON.stringify(expect.system)}`, system);
  }
  if (expect.lastUser !== undefined) {
    const last = [...prompt].reverse().find((m) => m.role === "user");
    const text = last ? messageText(last) : "";
    if (!text.includes(expect.lastUser))
      fail(`the last user message to contain ${JSON.stringify(expect.lastUser)}`, text);
  }
  if (expect.lastToolResult !== undefined) {
    const last = [...prompt].reverse().find((m) => m.role === "tool");
    const text = last ? messageText(last) : "";
    if (!text.includes(expect.lastToolResult)) {
      fail(`the last tool result to contain ${JSON.stringify(expect.lastToolResult)}`, text);
    }
  }
  const offered = (options.tools ?? []).map((t) => t.name);
  for (const name of expect.tools ?? []) {
    if (!offered.includes(name)) fail(`tool "${name}" to be offered`, offered.join(", "));
  }
  for (const name of expect.notTools ?? []) {
    if (offered.includes(name)) fail(`tool "${name}" not to be offered`, offered.join(", "));
  }
}

/** The text of one prompt message: text parts, tool-call inputs and tool-result outputs. */
export function messageText(m: LanguageModelV3Message): string {
  if (m.role === "system") return m.content;
  const out: string[] = [];
  for (const part of m.content) {
    if (part.type === "text" || part.type === "reasoning") out.push(part.text);
    else if (part.type === "tool-call") out.push(JSON.stringify(part.input));
    else if (part.type === "tool-result") {
      const o = part.output;
      if (o.type === "text" || o.type === "error-text") out.push(o.value);
      else if (o.type === "json" || o.type === "error-json") out.push(JSON.stringify(o.value));
      else if (o.type === "execution-denied") out.push(o.reason ?? "execution denied");
      else if (o.type === "content") for (const c of o.value) if (c.type === "text") out.push(c.text);
    }
  }
  return out.join("\n");
}

/** Characters in the whole request (prompt and tool definitions), for usage estimates. */
export function promptChars(options: LanguageModelV3CallOptions): number {
  let n = 0;
  for (const m of options.prompt) n += messageText(m).length;
  for (const t of options.tools ?? []) n += t.name.length + JSON.stringify(t).length;
  return n;
}

function clip(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}
