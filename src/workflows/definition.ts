import { z } from "zod";

/** The file a workflow folder holds; the folder's name is the workflow's key. */
export const WORKFLOW_FILE = "workflow.js";

/** A workflow key: the folder name (lowercase words joined by hyphens). */
export const WorkflowKey = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, "must be lowercase letters, digits and hyphens");

/** One phase of a workflow, as its progress names it (`wf.progress({phase: key})`). */
export const PhaseSchema = z
  .object({
    key: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "must be a lowercase slug"),
    title: z.string().min(1),
  })
  .strict();

/** What a workflow module exports beside its default `run(wf, args)` function. */
export const WorkflowMetaSchema = z
  .object({
    title: z.string().min(1),
    description: z.string().min(1),
    whenToUse: z.string().min(1),
    phases: z.array(PhaseSchema).min(1),
    /** A JSON Schema for the args (an object schema); run_workflow validates args against it. */
    args: z
      .record(z.string(), z.unknown())
      .refine((s) => s.type === "object", 'must be an object schema ({"type": "object", …})'),
  })
  .strict();
export type WorkflowMeta = z.infer<typeof WorkflowMetaSchema>;
export type Phase = z.infer<typeof PhaseSchema>;
