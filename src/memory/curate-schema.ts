import { z } from "zod";

/** One RFC 6902 operation over the list of a subject's memories. */
export const PatchOperationSchema = z
  .object({
    op: z.enum(["add", "remove", "replace", "move", "copy", "test"]),
    path: z.string(),
    from: z.string().optional(),
    value: z.unknown().optional(),
  })
  .strict();
export type PatchOperation = z.infer<typeof PatchOperationSchema>;

/** A JSON Patch (RFC 6902) over the list of memories: the memory curator's whole answer. */
export const MemoryPatchSchema = z.array(PatchOperationSchema);
export type MemoryPatch = z.infer<typeof MemoryPatchSchema>;
