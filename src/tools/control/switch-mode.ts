import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { ModeSchema } from "../../core/modes.js";
import { defineTool } from "../define.js";
import { sessionService } from "./session.js";

const describeMode = {
  normal: "normal (read and write)",
  discuss: "discuss (read-only conversation)",
  plan: "plan (read-only; proposals go to .agent/plan/)",
} as const;

export const switchMode = defineTool({
  key: "switch_mode",
  group: "control",
  scope: "session",
  ordering: "sequential",
  description:
    "Ask the user to switch the session mode: normal (read and write), discuss (read-only), plan (read-only, write the proposal under .agent/plan/). The user must approve; after a plan, ask to switch to normal to carry it out.",
  input: z
    .object({
      mode: ModeSchema.describe("the mode to switch to"),
      reason: z.string().min(1).max(2000).describe("why, in one or two sentences, shown to the user"),
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const control = sessionService(ctx, "control", "switch_mode");
    const target = input.mode;
    if (target === control.mode) {
      throw new NbError("conflict", `Already in ${target} mode. No switch needed.`);
    }
    const answer = control.resolution;
    if (!answer) {
      return control.suspend(
        "switch_mode",
        `Switch from ${describeMode[control.mode]} to ${describeMode[target]}?\nReason: ${input.reason}`,
      );
    }
    if (!answer.approved) {
      const why = answer.reason ? ` Reason: ${answer.reason}` : "";
      throw new NbError(
        "not_allowed",
        `The user declined to switch to ${target} mode; the session stays in ${control.mode} mode.${why}`,
      );
    }
    const from = control.mode;
    control.switchMode(target, input.reason);
    return { text: `Switched from ${from} to ${target} mode.`, details: { from, to: target } };
  },
});
