import { NbError } from "../../core/errors.js";
import type { Issue, WorldApi } from "../api.js";
import type { Calendar } from "../calendar/index.js";
import type { HostApi } from "../sandbox/index.js";
import type { SliceMeta } from "./canonical.js";
import type { WorldAccess } from "./job.js";

/**
 * What the script's write calls left beside the world's own write records: the issues they caused
 * (deduplicated, in the order they appeared) and the slice summary/kind each successful call set.
 */
export class WriteCollector {
  private readonly seen = new Set<string>();
  readonly issues: Issue[] = [];
  /** One entry per successful write call, in the order of the world's write records. */
  readonly metas: SliceMeta[] = [];

  add(list: readonly Issue[]): void {
    for (const i of list) {
      const key = [i.label, i.subjectId, i.attr, i.sliceId ?? "", i.patchId ?? "", i.code].join("\u0000");
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.issues.push(i);
    }
  }
}

function text(v: unknown, what: string): string {
  if (typeof v !== "string") throw new NbError("invalid_input", `${what} must be a string`);
  return v;
}

function instant(v: unknown): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v)) {
    throw new NbError("invalid_input", "time must be an integer number of seconds");
  }
  return v;
}

/** JSON turns an omitted optional argument into null; the domain wants undefined. */
const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

/**
 * The `world` object a script sees. Read-only access does not inject the write functions at all,
 * so `typeof world.slice.write === "undefined"` inside the sandbox.
 */
export function worldHostApi(opts: {
  world: WorldApi;
  calendar: () => Calendar;
  access: WorldAccess;
  collector: WriteCollector;
}): HostApi {
  const { world, calendar, collector } = opts;
  const now = world.now();
  const any = (v: unknown) => v as never;
  const slice: HostApi = {
    list: (o) => world.slice.list(any(opt(o))),
    get: (id) => world.slice.get(any(id)),
  };
  if (opts.access === "readwrite") {
    const recorded = <T extends { issues: Issue[] }>(r: T, meta: unknown): T => {
      collector.add(r.issues);
      const { summary, kind } = (meta ?? {}) as SliceMeta;
      collector.metas.push({
        ...(summary === undefined ? {} : { summary }),
        ...(kind === undefined ? {} : { kind }),
      });
      return r;
    };
    slice.write = (input) => recorded(world.slice.write(any(input)), input);
    slice.editPatches = (id, edits, meta) =>
      recorded(world.slice.editPatches(any(id), any(edits), any(opt(meta))), opt(meta));
    slice.delete = (id) => recorded(world.slice.delete(any(id)), undefined);
  }
  return {
    world: {
      time: {
        now: () => now,
        parse: (s) => calendar().parse(text(s, "calendar time")),
        format: (t, fmt) => {
          const f = opt(fmt);
          return calendar().format(instant(t), f === undefined ? undefined : text(f, "format"));
        },
        describe: () => calendar().describe(),
      },
      subject: {
        get: (id, o) => world.subject.get(any(id), any(opt(o))),
        gets: (ids, o) => world.subject.gets(any(ids), any(opt(o))),
        list: (type) => world.subject.list(any(opt(type))),
        info: (id) => world.subject.info(any(id)),
        findRefs: (id, o) => world.subject.findRefs(any(id), any(opt(o))),
        history: (id, o) => world.subject.history(any(id), any(opt(o))),
      },
      search: { text: (q, o) => world.search.text(any(q), any(opt(o))) },
      slice,
      schema: { describe: () => world.schema.describe() },
      issues: { list: (f) => world.issues.list(any(opt(f))) },
    },
  };
}
