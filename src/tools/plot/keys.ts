/** Keys of the eight plot read tools, for profile allowlists. */
export const PLOT_READ_TOOLS = [
  "get_story_tree",
  "get_story_thread",
  "get_story_scene_context",
  "get_scene_world_context",
  "get_story_chapter",
  "get_chapter_writer_brief",
  "get_story_promise",
  "get_story_decision",
] as const;

/** Keys of the seven plot write tools, for profile allowlists. */
export const PLOT_WRITE_TOOLS = [
  "save_story_act",
  "save_story_chapter",
  "save_story_thread",
  "save_story_scene",
  "save_story_promise",
  "save_promise_beat",
  "save_story_decision",
] as const;
