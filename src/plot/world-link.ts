import type { Instant, WorldApi } from "../world/api.js";

/** The two calendar operations the plot needs (the project calendar satisfies this). */
export interface PlotCalendar {
  parse(text: string): number;
  format(seconds: number): string;
}

/** One scene's question to the world: its closed time range and the subjects it involves. */
export interface SceneWorldQuery {
  sceneId: number;
  start: Instant;
  end: Instant;
  /** Subject ids plus the location, de-duplicated. */
  subjectIds: string[];
}

export interface SubjectState {
  subjectId: string;
  type: string;
  name: string;
  attrs: Record<string, unknown>;
}

export interface SceneSlice {
  id: string;
  instant: Instant;
  time: string | null;
  title: string;
  summary: string;
  kind: string;
  /** Patches of this slice that touch the scene's subjects. */
  patchCount: number;
}

/** What the world says about one scene. */
export interface SceneWorldContext {
  slices: SceneSlice[];
  /** Each resolved subject's state at the scene's end. */
  subjectStates: SubjectState[];
  unresolvedSubjectIds: string[];
  /** True when the slice listing hit its cap and older slices of the window may be missing. */
  slicesTruncated: boolean;
}

/** The World Engine as the plot sees it. */
export interface PlotWorld {
  /** Calendar string → instant; throws when there is no calendar or the text is not a time. */
  parseTime(text: string): Instant;
  /** Instant → calendar string, or null when the project has no usable calendar. */
  formatTime(instant: Instant): string | null;
  /**
   * World context of many scenes in one go, in three world calls however many scenes: one identity
   * lookup of the distinct subjects, one slice listing over the union of the scenes' windows and one
   * batched state read of every (subject, scene end) pair.
   */
  sceneContexts(queries: SceneWorldQuery[]): Map<number, SceneWorldContext>;
}

const SLICE_CAP = 1000;

const stateKey = (id: string, at: Instant) => `${at} ${id}`;

/** PlotWorld over a project's World Engine facade and calendar. */
export class WorldLink implements PlotWorld {
  constructor(
    private readonly api: () => WorldApi,
    private readonly calendar: () => PlotCalendar | null,
  ) {}

  parseTime(text: string): Instant {
    const cal = this.calendar();
    if (!cal) throw new Error("the project has no World Engine calendar; give the time as an instant");
    return cal.parse(text);
  }

  formatTime(instant: Instant): string | null {
    const cal = this.calendar();
    if (!cal) return null;
    try {
      return cal.format(instant);
    } catch {
      return null;
    }
  }

  sceneContexts(queries: SceneWorldQuery[]): Map<number, SceneWorldContext> {
    const out = new Map<number, SceneWorldContext>();
    const withSubjects = queries.filter((q) => q.subjectIds.length > 0);
    for (const q of queries) {
      out.set(q.sceneId, { slices: [], subjectStates: [], unresolvedSubjectIds: [], slicesTruncated: false });
    }
    if (withSubjects.length === 0) return out;
    const api = this.api();

    const ids = [...new Set(withSubjects.flatMap((q) => q.subjectIds))];
    const infos = api.subject.infos(ids);
    const identity = new Map(ids.map((id, i) => [id, infos[i]]));
    const resolved = ids.filter((id) => identity.get(id));

    // One slice listing over the union window, split per scene below.
    const live = withSubjects.filter((q) => q.subjectIds.some((s) => identity.get(s)));
    let slices: ReturnType<WorldApi["slice"]["list"]> = [];
    if (live.length && resolved.length) {
      const from = Math.min(...live.map((q) => q.start));
      const to = Math.max(...live.map((q) => q.end));
      slices = api.slice.list({
        from,
        to,
        subjectIds: resolved,
        subjectMode: "any",
        withPatches: true,
        limit: SLICE_CAP,
      });
    }
    const truncated = slices.length >= SLICE_CAP;

    // One batched state read of every distinct (subject, scene end) pair.
    const byEnd = new Map<Instant, Set<string>>();
    for (const q of live) {
      const set = byEnd.get(q.end) ?? new Set<string>();
      for (const s of q.subjectIds) if (identity.get(s)) set.add(s);
      byEnd.set(q.end, set);
    }
    const pairs = [...byEnd].flatMap(([at, set]) => [...set].map((id) => ({ id, at })));
    const values = pairs.length ? api.subject.statesAt(pairs) : [];
    const states = new Map(pairs.map((p, i) => [stateKey(p.id, p.at), values[i] ?? {}]));

    for (const q of withSubjects) {
      const mine = new Set(q.subjectIds.filter((s) => identity.get(s)));
      const ctx = out.get(q.sceneId)!;
      ctx.unresolvedSubjectIds = q.subjectIds.filter((s) => !identity.get(s));
      if (mine.size === 0) continue;
      ctx.slicesTruncated = truncated;
      for (const s of slices) {
        if (s.instant < q.start || s.instant > q.end) continue;
        const count = (s.patches ?? []).filter((p) => mine.has(p.subjectId)).length;
        if (count === 0) continue;
        ctx.slices.push({
          id: s.id,
          instant: s.instant,
          time: this.formatTime(s.instant),
          title: s.title,
          summary: s.summary,
          kind: s.kind,
          patchCount: count,
        });
      }
      ctx.subjectStates = [...mine].map((id) => {
        const info = identity.get(id)!;
        return {
          subjectId: id,
          type: info.type,
          name: info.name,
          attrs: states.get(stateKey(id, q.end)) ?? {},
        };
      });
    }
    return out;
  }
}
