import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { defineTool } from "../define.js";
import { sessionService } from "./session.js";

const Input = z
  .object({
    question: z.string().min(1).max(4000).describe("the question for the user"),
    choices: z.array(z.string().min(1).max(500)).min(1).max(12).optional().describe("answers to pick from"),
    allowFreeText: z
      .boolean()
      .optional()
      .describe("whether the user may type an answer outside the choices (default: true without choices)"),
  })
  .strict()
  .refine((v) => v.choices !== undefined || v.allowFreeText !== false, {
    message: "without choices the user must be allowed free text",
    path: ["allowFreeText"],
  });

/** The question as the user sees it. */
function formatQuestion(input: z.infer<typeof Input>): string {
  const lines = [input.question];
  input.choices?.forEach((c, i) => {
    lines.push(`  ${i + 1}. ${c}`);
  });
  if (input.choices && input.allowFreeText !== false) lines.push("  (or answer in your own words)");
  return lines.join("\n");
}

export const requestUserInput = defineTool({
  key: "request_user_input",
  group: "control",
  scope: "session",
  ordering: "sequential",
  description:
    "Ask the user one question and wait for the answer (optionally with choices). Use it when a decision is theirs to make; the answer comes back as this tool's result.",
  input: Input,
  effect: "read",
  execute: (input, ctx) => {
    const control = sessionService(ctx, "control", "request_user_input");
    const answer = control.resolution;
    if (!answer) return control.suspend("user_input", formatQuestion(input));
    if (!answer.approved || answer.answer === undefined) {
      throw new NbError(
        "aborted",
        `The user dismissed the question without answering.${answer.reason ? ` ${answer.reason}` : ""}`,
      );
    }
    const text = answer.answer.trim();
    const choice = input.choices?.find((c) => c === text || String(input.choices!.indexOf(c) + 1) === text);
    if (input.choices && input.allowFreeText === false && choice === undefined) {
      throw new NbError("invalid_input", `The answer "${text}" is not one of the choices`, {
        fields: [{ pointer: "/answer", message: "not one of the choices" }],
      });
    }
    const value = choice ?? text;
    return { text: `The user answered: ${value}`, details: { question: input.question, answer: value } };
  },
});
