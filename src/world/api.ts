import { z } from "zod";

/**
 * The World Engine's public contract: input schemas (zod, the single source of truth), result
 * types and the `WorldApi` facade that the sandbox, the tool and the CLI call. Open a project's
 * world with `openWorld(project)` from `./world.js`; every method is synchronous and throws NbError.
 *
 * Time is an integer count of seconds (a safe integer; negative = before the zero point).
 */

/** An instant: integer seconds from the world's zero point. */
export const instantSchema = z.number().int().refine(Number.isSafeInteger, "must be a safe integer");
export type Instant = number;

export const PATCH_OPS = ["replace", "increment", "remove", "append"] as const;
export const patchOpSchema = z.enum(PATCH_OPS);
export type PatchOp = z.infer<typeof patchOpSchema>;

const subjectIdSchema = z
  .string()
  .min(1)
  .refine((s) => s.trim() === s, "must not start or end with whitespace");

/** One patch as a caller writes it; `type`/`name` only matter on a subject's first write. */
export const patchInputSchema = z
  .object({
    subjectId: subjectIdSchema,
    path: z.string(),
    op: patchOpSchema,
    value: z.unknown().optional(),
    summary: z.string().optional(),
    type: z.string().optional(),
    name: z.string().optional(),
  })
  .strict();
export type PatchInput = z.infer<typeof patchInputSchema>;

const sliceLabel = z
  .string()
  .min(1)
  .refine((s) => s.trim() === s, "must not start or end with whitespace");

/** `slice.write` input. `merge: true` appends to the slice already at `time` instead of failing with `conflict`. */
export const sliceWriteSchema = z
  .object({
    time: instantSchema,
    title: z.string().optional(),
    summary: z.string().optional(),
    kind: sliceLabel.optional(),
    merge: z.boolean().optional(),
    patches: z.array(patchInputSchema).min(1).max(100),
  })
  .strict();
export type SliceWriteInput = z.infer<typeof sliceWriteSchema>;

/** One edit of `editPatches`: change a patch, remove it, or add a new one at the end of the slice. */
export const patchEditSchema = z.union([
  z
    .object({
      patchId: z.string().min(1),
      set: z
        .object({
          path: z.string().optional(),
          op: patchOpSchema.optional(),
          value: z.unknown().optional(),
          summary: z.string().optional(),
        })
        .strict(),
    })
    .strict(),
  z.object({ patchId: z.string().min(1), remove: z.literal(true) }).strict(),
  z.object({ add: patchInputSchema }).strict(),
]);
export type PatchEdit = z.infer<typeof patchEditSchema>;

/** Slice metadata an edit may change; `time` moves the slice. */
export const sliceMetaSchema = z
  .object({
    time: instantSchema.optional(),
    title: z.string().optional(),
    summary: z.string().optional(),
    kind: sliceLabel.optional(),
  })
  .strict();
export type SliceMetaEdit = z.infer<typeof sliceMetaSchema>;

export const getOptionsSchema = z
  .object({
    at: instantSchema.optional(),
    deref: z.boolean().optional(),
    derefDepth: z.number().int().min(1).max(5).optional(),
  })
  .strict();
export type GetOptions = z.infer<typeof getOptionsSchema>;

/** One question of `subject.statesAt`: a subject's state at an instant. */
export const stateQuerySchema = z.object({ id: z.string(), at: instantSchema }).strict();
export type StateQuery = z.infer<typeof stateQuerySchema>;

export const findRefsOptionsSchema = z
  .object({ at: instantSchema.optional(), sourceType: z.string().optional() })
  .strict();
export type FindRefsOptions = z.infer<typeof findRefsOptionsSchema>;

export const historyOptionsSchema = z.object({ path: z.string().optional() }).strict();
export type HistoryOptions = z.infer<typeof historyOptionsSchema>;

/** Most ids, types or attributes one filter may name (each becomes an SQL parameter). */
const MAX_FILTER_ITEMS = 1000;

/** Longest search query, in characters. */
export const MAX_QUERY_CHARS = 2000;

export const sliceListSchema = z
  .object({
    from: instantSchema.optional(),
    to: instantSchema.optional(),
    limit: z.number().int().min(1).max(1000).optional(),
    subjectIds: z.array(subjectIdSchema).min(1).max(MAX_FILTER_ITEMS).optional(),
    subjectMode: z.enum(["any", "all"]).optional(),
    withPatches: z.boolean().optional(),
  })
  .strict();
export type SliceListOptions = z.infer<typeof sliceListSchema>;

export const searchOptionsSchema = z
  .object({
    k: z.number().int().min(1).max(200).optional(),
    types: z.array(z.string().min(1)).min(1).max(MAX_FILTER_ITEMS).optional(),
    attrs: z.array(z.string().min(1)).min(1).max(MAX_FILTER_ITEMS).optional(),
    at: instantSchema.optional(),
  })
  .strict();
export type SearchOptions = z.infer<typeof searchOptionsSchema>;

/** A stored patch. */
export interface Patch {
  patchId: string;
  subjectId: string;
  path: string;
  op: PatchOp;
  value?: unknown;
  summary?: string;
}

/** Issue labels: E = data errors kept up to date, A = advisories returned by writes that change the past. */
export type IssueLabel = "E1" | "E2" | "E3" | "E4" | "E5" | "A1" | "A2";

/** One problem in the world's data, worded from the catalog (see issues.ts). */
export interface Issue {
  code: string;
  label: IssueLabel;
  severity: "error" | "advisory";
  subjectId: string;
  /** JSON Pointer of the attribute concerned. */
  attr: string;
  sliceId?: string;
  patchId?: string;
  instant?: Instant;
  op?: PatchOp;
  title: string;
  /** What happened in this instance. */
  message: string;
  explanation: { whatHappened: string; whyItMatters: string; suggestedAction: string };
}

/** A slice in a listing. */
export interface SliceInfo {
  id: string;
  instant: Instant;
  title: string;
  summary: string;
  kind: string;
  patchCount: number;
  patches?: Patch[];
  /** E issues attributed to this slice (present only when there are some). */
  issues?: Issue[];
}

/** One slice with its patches and neighbours. */
export interface SliceDetail extends SliceInfo {
  previousInstant: Instant | null;
  nextInstant: Instant | null;
  patches: Patch[];
  issues: Issue[];
}

/** What a write, edit or delete returns. */
export interface WriteResult {
  sliceId: string;
  instant: Instant;
  /** The ids of the slice's patches after the call, in order (empty after a delete). */
  patchIds: string[];
  /** Problems this call caused: new E issues and advisories (A). */
  issues: Issue[];
  /** E issues the touched subjects already had before the call and still have. */
  existingIssues: Issue[];
}

export interface SubjectInfo {
  id: string;
  type: string;
  name: string;
}

/** One change of a subject, from `subject.history`. */
export interface HistoryEntry {
  sliceId: string;
  instant: Instant;
  sliceTitle: string;
  patchId: string;
  seq: number;
  path: string;
  op: PatchOp;
  value?: unknown;
  summary?: string;
}

export interface RefInfo {
  subjectId: string;
  /** JSON Pointer of the value that holds the reference. */
  attr: string;
}

export interface SearchHit {
  subjectId: string;
  type: string;
  /** JSON Pointer of the text entry, e.g. `/memory/师门` or `/events/3`. */
  attr: string;
  text: string;
  score: number;
}

/** An attribute in `schema.describe()`. */
export interface AttrDescription {
  name: string;
  type: string;
  of?: AttrDescription;
  to?: string;
  values?: Array<string | number | boolean>;
  fields?: AttrDescription[];
  default?: unknown;
  description?: string;
}

export interface SchemaDescription {
  /** "file" when world-engine/schema.yaml exists; "none" = permissive (any type, free scalar attributes). */
  source: "file" | "none";
  types: Array<{ type: string; description?: string; attrs: AttrDescription[] }>;
}

/** One write a script made; a dry run collects these for the approval preview. */
export interface WriteRecord {
  action: "write" | "edit" | "delete";
  sliceId: string;
  instant: Instant;
  title: string;
  /** The slice's patches after the call (before it, for a delete). */
  patches: Patch[];
  issues: Issue[];
}

export interface TransactionResult<T> {
  value: T;
  writes: WriteRecord[];
}

/** The World Engine facade of one project. */
export interface WorldApi {
  /** Instant of the latest slice, or 0 when the world is empty. */
  now(): Instant;
  readonly subject: {
    /**
     * Attributes at `at` (default: latest), or null for an unknown subject; `deref` embeds
     * `{__ref, ...target}`. The result is read-only (latest states are shared, frozen objects).
     */
    get(id: string, opts?: GetOptions): Record<string, unknown> | null;
    gets(ids: string[], opts?: GetOptions): Array<Record<string, unknown> | null>;
    /**
     * States of many (subject, instant) pairs in one call, in the order asked: each equals
     * `get(id, { at })` (null for an unknown subject), but each subject's checkpoints and patches
     * are walked once, in time order, for all its instants. Results are fresh, mutable objects.
     */
    statesAt(pairs: StateQuery[]): Array<Record<string, unknown> | null>;
    /** Subjects sorted by type then id; an undeclared type is `invalid_input` when the schema declares types. */
    list(type?: string): SubjectInfo[];
    info(id: string): SubjectInfo | null;
    /** `info` of each id, in the order asked (null for an unknown subject). */
    infos(ids: string[]): Array<SubjectInfo | null>;
    /** Who points at `id` (values equal to `subject://<id>`) at `at` (default: latest). */
    findRefs(id: string, opts?: FindRefsOptions): RefInfo[];
    /** Every patch of the subject, in time order; `path` keeps those overlapping it. */
    history(id: string, opts?: HistoryOptions): HistoryEntry[];
  };
  readonly slice: {
    list(opts?: SliceListOptions): SliceInfo[];
    get(sliceId: string): SliceDetail;
    write(input: SliceWriteInput): WriteResult;
    editPatches(sliceId: string, edits: PatchEdit[], meta?: SliceMetaEdit): WriteResult;
    delete(sliceId: string): WriteResult;
  };
  readonly search: {
    /** Text entries live at `at` matching `query`: keyword (FTS5 trigram), re-ranked by embeddings when configured. */
    text(query: string, opts?: SearchOptions): SearchHit[];
  };
  readonly schema: {
    describe(): SchemaDescription;
  };
  readonly issues: {
    /** Current E issues, all or for one subject / slice. */
    list(filter?: { subjectId?: string; sliceId?: string }): Issue[];
  };
  /**
   * Run `fn` as one transaction (nested calls become savepoints; each write call is its own
   * savepoint). A throw rolls everything back and is rethrown. `dryRun` always rolls back and
   * still reports what would have been written.
   */
  transaction<T>(fn: () => T, opts?: { dryRun?: boolean }): TransactionResult<T>;
}
