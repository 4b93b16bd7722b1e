import { NbError } from "../core/errors.js";
import type { InvocationMode } from "../harness/types.js";

/** Where the target session is when an agent invokes it. */
export type TargetState = "idle" | "running" | "waiting";

/** What an invocation asks for, as far as admission cares. */
export interface AdmissionRequest {
  mode: InvocationMode;
  hasMessage: boolean;
  hasInput: boolean;
  hasModel: boolean;
}

/** Admission's answer: run now, or queue behind the active invocation. */
export type Admission = { action: "run" } | { action: "queue"; queue: "prompt" | "followup" | "steer" };

/** Why an invocation was refused, in `details.reason` of the `conflict` error. */
export type RefusalReason = "active_invocation_required" | "active_invocation_exists" | "waiting_for_user";

function refuse(reason: RefusalReason, message: string): never {
  throw new NbError("conflict", `${reason}: ${message}`, { details: { reason } });
}

/**
 * The admission matrix of `invoke_agent` (reference §1.2). Idle: prompt and continue run, steer and
 * followup need an active invocation. Running: prompt and followup queue after it, steer is shown
 * to it before its next model call, continue is refused. Waiting on the user: everything is
 * refused until the user settles the child's approval or question.
 */
export function admit(state: TargetState, req: AdmissionRequest): Admission {
  const given = req.hasMessage || req.hasInput;
  if (req.mode === "continue" && given) {
    throw new NbError(
      "invalid_input",
      "continue takes neither message nor input: it resumes where the session stopped",
      {
        fields: [
          { pointer: req.hasMessage ? "/message" : "/input", message: "not allowed with mode continue" },
        ],
      },
    );
  }
  if (req.mode !== "continue" && !given) {
    throw new NbError("invalid_input", `${req.mode} needs a message or an input`, {
      fields: [{ pointer: "/message", message: "required (or input)" }],
    });
  }
  if (req.mode === "steer" && req.hasModel) {
    throw new NbError("invalid_input", "A steer joins the running invocation and cannot change its model", {
      fields: [{ pointer: "/model", message: "not allowed with mode steer" }],
    });
  }
  if (state === "waiting") {
    refuse(
      "waiting_for_user",
      "the session waits on the user's approval or answer; nothing can be added until the user settles it",
    );
  }
  if (state === "idle") {
    if (req.mode === "steer" || req.mode === "followup") {
      refuse(
        "active_invocation_required",
        `${req.mode} joins a running invocation, and the session is idle; use mode prompt`,
      );
    }
    return { action: "run" };
  }
  if (req.mode === "continue") {
    refuse("active_invocation_exists", "the session is running; continue only resumes an idle session");
  }
  return {
    action: "queue",
    queue: req.mode === "steer" ? "steer" : req.mode === "followup" ? "followup" : "prompt",
  };
}
