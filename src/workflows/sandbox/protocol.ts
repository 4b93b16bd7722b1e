import type { ErrorInfo } from "../../core/errors.js";

/** Resource limits of one pass (a fresh QuickJS runtime). */
export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
}

/** One completed activity, as stored and as delivered to a re-execution. */
export interface JournalEntry {
  /** The activity's number in call order. */
  seq: number;
  kind: string;
  /** Canonical JSON of its parameters (sorted keys): a re-execution must call the same thing. */
  fp: string;
  ok: boolean;
  value?: unknown;
  error?: ErrorInfo;
}

/** An activity the script is waiting on that the journal does not hold yet. */
export interface ActivityRequest {
  seq: number;
  kind: string;
  fp: string;
  params: unknown;
}

/** The fan-out width of wf.map / wf.all: the default, and the ceiling an argument is clamped to. */
export interface FanOut {
  default: number;
  max: number;
}

/** What the main thread asks a sandbox worker to do. */
export type SandboxJob =
  | { kind: "describe"; source: string; filename: string; limits: SandboxLimits }
  | ({ kind: "pass" } & PassJob);

export interface PassJob {
  source: string;
  filename: string;
  args: unknown;
  journal: JournalEntry[];
  concurrency: FanOut;
  limits: SandboxLimits;
}

/** Where the progress of a run stands, as the script last set it (`wf.progress`). */
export interface Progress {
  phase?: string;
  done?: number;
  total?: number;
  note?: string;
}

/** The outcome of one pass. */
export interface PassOutcome {
  /** running: waiting on `requests`; done: the script returned `value`; failed: `error`. */
  state: "running" | "done" | "failed";
  value?: unknown;
  error?: ErrorInfo;
  requests: ActivityRequest[];
  /** New wf.now()/wf.random() values the pass produced, to append to the journal. */
  syncEntries: JournalEntry[];
  /** Everything wf.log received, from the start of the run (a pass replays them all). */
  logs: string[];
  progress: Progress | null;
}
