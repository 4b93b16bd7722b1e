/** What one table of project.sqlite means, and what each of its columns means. */
export interface TableDoc {
  meaning: string;
  columns: Readonly<Record<string, string>>;
}

const TIMESTAMPS = {
  created_at: "ISO-8601 UTC time the row was created",
  updated_at: "ISO-8601 UTC time the plot services last changed the row (raw SQL does not bump it)",
};

/**
 * Meaning of every plot table and column in project.sqlite, for agents writing SQL. Ids are
 * INTEGER; booleans are 0/1; tags/options columns hold JSON text; times in the world are World
 * Engine instants (integer seconds), never calendar strings.
 */
export const PLOT_SCHEMA_DOC: Readonly<Record<string, TableDoc>> = {
  story: {
    meaning: "The one story of this project (always id 1), seeded from project.yaml",
    columns: {
      id: "always 1",
      title: "story title",
      summary: "story summary",
      note: "free author note, or NULL",
      ...TIMESTAMPS,
    },
  },
  story_act: {
    meaning: "Act (volume) in the carrier tree; groups chapters",
    columns: {
      id: "act id",
      sort_order: "position among acts, contiguous from 0",
      name: "unique slug (lowercase letters, digits, hyphens)",
      title: "display title",
      summary: "what happens in the act",
      note: "free author note, or NULL",
      status: "active | archived",
      ...TIMESTAMPS,
    },
  },
  story_chapter: {
    meaning: "Chapter in the carrier tree, with the eleven brief fields handed to the writer",
    columns: {
      id: "chapter id",
      act_id: "story_act.id it belongs to, or NULL for an ungrouped chapter",
      sort_order: "story-wide reading position, contiguous from 0 (not per act)",
      name: "unique slug; prose frontmatter `chapter: <name>` points here",
      title: "display title",
      note: "free author note, or NULL",
      status: "active | archived",
      brief_goal: "what the chapter must achieve",
      brief_pov: "point of view and narrative distance",
      brief_tone: "tone",
      brief_pacing: "pacing and pull into the next chapter",
      brief_reader_knows: "information control: what the reader already knows",
      brief_protagonist_knows: "information control: what the protagonist knows",
      brief_must_hide: "information control: what must stay hidden",
      brief_hint_only: "information control: what may be hinted at but not said",
      brief_opening: "opening hook",
      brief_ending: "ending / landing line",
      brief_do_not_write: "things the writer must not write",
      ...TIMESTAMPS,
    },
  },
  story_phase: {
    meaning: "Phase in the causal tree; groups threads",
    columns: {
      id: "phase id",
      sort_order: "position among phases, contiguous from 0",
      name: "unique slug",
      title: "display title",
      summary: "what the phase covers",
      note: "free author note, or NULL",
      status: "active | archived",
      ...TIMESTAMPS,
    },
  },
  story_thread: {
    meaning: "Thread: a long-running causal, conflict or growth line made of scenes",
    columns: {
      id: "thread id",
      phase_id: "story_phase.id, or NULL for the ungrouped bucket",
      sort_order: "position within its phase (or the ungrouped bucket), contiguous from 0",
      name: "unique slug",
      title: "display title",
      is_main: "1 for a main thread, else 0",
      status: "draft | active | paused | done | archived",
      mice_type: "milieu | idea | character | event, or NULL when not set",
      summary: "rolling summary of the thread",
      tags: "JSON array of tag strings",
      writing_tip: "advice for the writer, or NULL",
      note: "free author note, or NULL",
      ...TIMESTAMPS,
    },
  },
  story_scene: {
    meaning:
      "Scene: smallest plot unit; belongs to a thread, may be placed in a chapter, anchored in world time",
    columns: {
      id: "scene id",
      thread_id: "story_thread.id (causal order lives in thread_sort_order)",
      chapter_id: "story_chapter.id it is placed in, or NULL when not placed",
      thread_sort_order: "causal position within the thread, contiguous from 0",
      chapter_sort_order:
        "presentation position within the chapter, contiguous from 0; NULL exactly when chapter_id is NULL",
      title: "display title",
      status: "draft | active | written | revised | archived (archived scenes count nowhere)",
      outcome_type: "yes_but | no_and | yes_and | no_but | yes | no | no_conflict | passive, or NULL",
      pacing_role: "setup | escalation | breather | climax | resolution, or NULL",
      summary: "what happens",
      purpose: "why the scene exists, or NULL",
      writing_tip: "advice for the writer, or NULL",
      note: "free author note, or NULL",
      start_instant:
        "World Engine instant (integer seconds) where the scene starts, or NULL when not anchored",
      end_instant: "World Engine instant where the scene ends (>= start_instant), or NULL",
      location_subject_id: "World Engine subject id of the location, or NULL",
      ...TIMESTAMPS,
    },
  },
  story_scene_subject: {
    meaning: "World Engine subjects involved in a scene (ids may not exist in the world yet)",
    columns: {
      scene_id: "story_scene.id",
      sort_order: "position in the scene's subject list, from 0",
      subject_id: "World Engine subject id",
    },
  },
  story_scene_ref: {
    meaning: "Reference from a scene to a content file, a thread or another scene",
    columns: {
      id: "ref id",
      scene_id: "story_scene.id holding the reference",
      sort_order: "position in the scene's ref list, from 0",
      relation: "free label, e.g. defines, constrains, depends_on, part_of, conflicts_with, derived_from",
      target_kind: "content | thread | scene",
      target_path: "project-relative file path when target_kind = content, else NULL",
      target_thread_id: "story_thread.id when target_kind = thread, else NULL",
      target_scene_id: "story_scene.id when target_kind = scene, else NULL",
      visibility: "author | reader (advisory)",
      note: "free note, or NULL",
    },
  },
  story_promise: {
    meaning: "Reader promise (setup, foreshadowing, mystery) that must be paid off",
    columns: {
      id: "promise id",
      name: "unique slug",
      title: "display title",
      status: "open | fulfilled | abandoned (stored intent; the stage is derived from beats)",
      fulfilled_via:
        "payoff (auto-fulfilled by a payoff beat) | manual (fulfilled by hand); NULL unless fulfilled",
      fulfilled_by: "who fulfilled it: a profile key, 'user', or NULL",
      importance: "low | medium | high",
      summary: "what was promised to the reader",
      payoff_expectation: "intended dramatic effect of the payoff, or NULL",
      deadline_chapter_id: "story_chapter.id by which it should pay off, or NULL",
      tags: "JSON array of tag strings",
      note: "free author note, or NULL",
      ...TIMESTAMPS,
    },
  },
  story_promise_beat: {
    meaning: "One promise touching one scene (at most one beat per promise per scene)",
    columns: {
      id: "beat id",
      promise_id: "story_promise.id",
      scene_id: "story_scene.id",
      kind: "plant | advance | setback | payoff",
      note: "instruction for this beat, delivered to that scene's writer, or NULL",
      ...TIMESTAMPS,
    },
  },
  story_decision: {
    meaning: "Decision record (open question, options, conclusion) about the story",
    columns: {
      id: "decision id",
      name: "unique slug",
      title: "display title",
      status: "open | decided | superseded | voided",
      question: "the open question",
      options: 'JSON array of {"option": text, "note": text|null}',
      conclusion: "what was decided (set when decided), or NULL",
      reason: "why it was decided, or NULL",
      risk: "what could go wrong with the decision, or NULL",
      rejected_alternatives: 'JSON array of {"option": text, "whyRejected": text|null}',
      void_reason: "why the decision was voided, or NULL",
      superseded_by_id: "story_decision.id of the replacing decision when superseded, else NULL",
      deadline_chapter_id: "story_chapter.id by which it must be decided, or NULL",
      anchor_kind: "story | act | chapter | thread | scene | promise | content: what the decision is about",
      anchor_act_id: "story_act.id when anchor_kind = act",
      anchor_chapter_id: "story_chapter.id when anchor_kind = chapter",
      anchor_thread_id: "story_thread.id when anchor_kind = thread",
      anchor_scene_id: "story_scene.id when anchor_kind = scene",
      anchor_promise_id: "story_promise.id when anchor_kind = promise",
      anchor_path: "project-relative file path when anchor_kind = content",
      note: "free author note, or NULL",
      ...TIMESTAMPS,
    },
  },
  story_decision_link: {
    meaning: "What a decision serves or depends on (one row per entry of those lists)",
    columns: {
      decision_id: "story_decision.id holding the link",
      relation: "serves | depends_on",
      sort_order: "position in that list, from 0",
      target_kind: "promise | decision | thread | scene | content",
      target_promise_id: "story_promise.id when target_kind = promise",
      target_decision_id: "story_decision.id when target_kind = decision",
      target_thread_id: "story_thread.id when target_kind = thread",
      target_scene_id: "story_scene.id when target_kind = scene",
      target_path: "project-relative file path when target_kind = content",
    },
  },
  history_row: {
    meaning:
      "NeuroBook's row log of recorded changes (read-only: execute_sql cannot write it); one row per plot row a change touched",
    columns: {
      id: "log order",
      change_id: "the history change the row belongs to",
      tbl: "the plot table of the row",
      pk: "the row's primary key values, as a JSON array",
      before: "the row before the change, as a JSON object (NULL: it did not exist)",
      after: "the row after the change, as a JSON object (NULL: the change removed it)",
    },
  },
};
