import { z } from "zod";
import { NbError } from "../../core/errors.js";
import { formatFieldErrors, zodFieldErrors } from "../../core/validate.js";
import { sessionService } from "../control/session.js";
import { defineTool } from "../define.js";
import type { AnyTool } from "../types.js";

/** What report_result needs from the harness: the profile's output schema (null = none). */
export interface ResultService {
  readonly schema: z.ZodType | null;
}

export const reportResult = defineTool({
  key: "report_result",
  group: "result",
  scope: "session",
  ordering: "sequential",
  terminal: true,
  description: "End the run and report your result.",
  input: z
    .object({
      result: z.string().min(1),
      data: z.unknown().optional().describe("structured output matching the profile's output schema"),
    })
    .strict(),
  effect: "read",
  execute: (input, ctx) => {
    const { schema } = sessionService(ctx, "result", "report_result");
    if (input.data === undefined) return { text: input.result, details: { result: input.result } };
    if (!schema) {
      throw new NbError("invalid_input", "This profile has no structured output; report only `result`.", {
        fields: [{ pointer: "/data", message: "not accepted by this profile" }],
      });
    }
    const parsed = schema.safeParse(input.data);
    if (!parsed.success) {
      const fields = zodFieldErrors(parsed.error, ["data"]);
      throw new NbError(
        "invalid_input",
        `report_result data does not match the output schema:\n${formatFieldErrors(fields)}`,
        {
          fields,
        },
      );
    }
    return { text: input.result, details: { result: input.result, data: parsed.data } };
  },
});

/** The result tools (seed: "Result"); session-bound. */
export const resultTools: AnyTool[] = [reportResult];
