import { randomBytes } from "node:crypto";

/** An opening or closing `system-reminder` tag, however it is spaced or cased. */
const REMINDER_TAG = /<(\s*\/?\s*system[\s_-]*reminder)/gi;

/**
 * Text nbook did not write (a tool's output, a page, an agent's message) with its system-reminder
 * tags made literal (`&lt;system-reminder>`): only nbook opens or closes a reminder, so such text
 * cannot end one early or open one of its own.
 */
export function neutraliseReminderTags(text: string): string {
  return text.replace(REMINDER_TAG, "&lt;$1");
}

/**
 * Untrusted text between two markers, its reminder tags made literal. The random id means the text
 * cannot fake the end marker and go on in the voice of whatever wraps it. `kind` names what it is
 * (`job-output`, `web-content`): the markers read `<<<untrusted-<kind> <id>>>>` and
 * `<<<end-untrusted-<kind> <id>>>>`.
 */
export function fenceUntrusted(kind: string, text: string): string {
  const id = randomBytes(6).toString("hex");
  return `<<<untrusted-${kind} ${id}>>>\n${neutraliseReminderTags(text)}\n<<<end-untrusted-${kind} ${id}>>>`;
}
