/** Forward-only migrations of `project.sqlite`; index i upgrades schema version i to i+1. */
export const PLOT_MIGRATIONS: readonly string[] = [
  `
CREATE TABLE story (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  title TEXT NOT NULL,
  summary TEXT NOT NULL DEFAULT '',
  note TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);

CREATE TABLE story_act (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  sort_order INTEGER NOT NULL,
  name TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  summary TEXT NOT NULL DEFAULT '',
  note TEXT,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','archived')),
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX story_act_order ON story_act(sort_order);

CREATE TABLE story_chapter (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  act_id INTEGER REFERENCES story_act(id) ON DELETE SET NULL,
  sort_order INTEGER NOT NULL,
  name TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  note TEXT,
  status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','archived')),
  brief_goal TEXT,
  brief_pov TEXT,
  brief_tone TEXT,
  brief_pacing TEXT,
  brief_reader_knows TEXT,
  brief_protagonist_knows TEXT,
  brief_must_hide TEXT,
  brief_hint_only TEXT,
  brief_opening TEXT,
  brief_ending TEXT,
  brief_do_not_write TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX story_chapter_order ON story_chapter(sort_order);
CREATE INDEX story_chapter_act ON story_chapter(act_id, sort_order);

CREATE TABLE story_phase (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  sort_order INTEGER NOT NULL,
  name TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  summary TEXT NOT NULL DEFAULT '',
  note TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);

CREATE TABLE story_thread (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  phase_id INTEGER REFERENCES story_phase(id) ON DELETE SET NULL,
  sort_order INTEGER NOT NULL,
  name TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  is_main INTEGER NOT NULL DEFAULT 0 CHECK (is_main IN (0,1)),
  status TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft','active','paused','done','archived')),
  mice_type TEXT CHECK (mice_type IN ('milieu','idea','character','event')),
  summary TEXT NOT NULL DEFAULT '',
  tags TEXT NOT NULL DEFAULT '[]',
  writing_tip TEXT,
  note TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX story_thread_order ON story_thread(phase_id, sort_order);
CREATE INDEX story_thread_status ON story_thread(status);

CREATE TABLE story_scene (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  thread_id INTEGER NOT NULL REFERENCES story_thread(id) ON DELETE CASCADE,
  chapter_id INTEGER REFERENCES story_chapter(id) ON DELETE SET NULL,
  thread_sort_order INTEGER NOT NULL,
  chapter_sort_order INTEGER,
  title TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft','active','written','revised','archived')),
  outcome_type TEXT CHECK (outcome_type IN ('yes_but','no_and','yes_and','no_but','yes','no','no_conflict','passive')),
  pacing_role TEXT CHECK (pacing_role IN ('setup','escalation','breather','climax','resolution')),
  summary TEXT NOT NULL DEFAULT '',
  purpose TEXT,
  writing_tip TEXT,
  note TEXT,
  start_instant INTEGER,
  end_instant INTEGER,
  location_subject_id TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  CHECK (start_instant IS NULL OR end_instant IS NULL OR start_instant <= end_instant),
  CHECK ((chapter_id IS NULL) = (chapter_sort_order IS NULL))
);
CREATE INDEX story_scene_thread ON story_scene(thread_id, thread_sort_order);
CREATE INDEX story_scene_chapter ON story_scene(chapter_id, chapter_sort_order);
CREATE INDEX story_scene_status ON story_scene(status);
CREATE INDEX story_scene_start ON story_scene(start_instant);

CREATE TABLE story_scene_subject (
  scene_id INTEGER NOT NULL REFERENCES story_scene(id) ON DELETE CASCADE,
  sort_order INTEGER NOT NULL,
  subject_id TEXT NOT NULL,
  PRIMARY KEY (scene_id, subject_id)
) WITHOUT ROWID;
CREATE INDEX story_scene_subject_by_subject ON story_scene_subject(subject_id);

CREATE TABLE story_scene_ref (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  scene_id INTEGER NOT NULL REFERENCES story_scene(id) ON DELETE CASCADE,
  sort_order INTEGER NOT NULL,
  relation TEXT NOT NULL,
  target_kind TEXT NOT NULL CHECK (target_kind IN ('content','thread','scene')),
  target_path TEXT,
  target_thread_id INTEGER REFERENCES story_thread(id) ON DELETE CASCADE,
  target_scene_id INTEGER REFERENCES story_scene(id) ON DELETE CASCADE,
  visibility TEXT NOT NULL DEFAULT 'author' CHECK (visibility IN ('author','reader')),
  note TEXT,
  CHECK ((target_kind = 'content') = (target_path IS NOT NULL)),
  CHECK ((target_kind = 'thread') = (target_thread_id IS NOT NULL)),
  CHECK ((target_kind = 'scene') = (target_scene_id IS NOT NULL))
);
CREATE INDEX story_scene_ref_scene ON story_scene_ref(scene_id, sort_order);

CREATE TABLE story_promise (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open','fulfilled','abandoned')),
  fulfilled_via TEXT CHECK (fulfilled_via IN ('payoff','manual')),
  fulfilled_by TEXT,
  importance TEXT NOT NULL DEFAULT 'medium' CHECK (importance IN ('low','medium','high')),
  summary TEXT NOT NULL DEFAULT '',
  payoff_expectation TEXT,
  deadline_chapter_id INTEGER REFERENCES story_chapter(id) ON DELETE SET NULL,
  tags TEXT NOT NULL DEFAULT '[]',
  note TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  CHECK ((status = 'fulfilled') = (fulfilled_via IS NOT NULL))
);
CREATE INDEX story_promise_status ON story_promise(status, importance);

CREATE TABLE story_promise_beat (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  promise_id INTEGER NOT NULL REFERENCES story_promise(id) ON DELETE CASCADE,
  scene_id INTEGER NOT NULL REFERENCES story_scene(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('plant','advance','setback','payoff')),
  note TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  UNIQUE (promise_id, scene_id)
);
CREATE INDEX story_promise_beat_scene ON story_promise_beat(scene_id);

CREATE TABLE story_decision (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open','decided','superseded','voided')),
  question TEXT NOT NULL,
  options TEXT NOT NULL DEFAULT '[]',
  conclusion TEXT,
  reason TEXT,
  risk TEXT,
  rejected_alternatives TEXT NOT NULL DEFAULT '[]',
  void_reason TEXT,
  superseded_by_id INTEGER REFERENCES story_decision(id) ON DELETE SET NULL,
  deadline_chapter_id INTEGER REFERENCES story_chapter(id) ON DELETE SET NULL,
  anchor_kind TEXT NOT NULL DEFAULT 'story' CHECK (anchor_kind IN ('story','act','chapter','thread','scene','promise','content')),
  anchor_act_id INTEGER REFERENCES story_act(id) ON DELETE SET NULL,
  anchor_chapter_id INTEGER REFERENCES story_chapter(id) ON DELETE SET NULL,
  anchor_thread_id INTEGER REFERENCES story_thread(id) ON DELETE SET NULL,
  anchor_scene_id INTEGER REFERENCES story_scene(id) ON DELETE SET NULL,
  anchor_promise_id INTEGER REFERENCES story_promise(id) ON DELETE SET NULL,
  anchor_path TEXT,
  note TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))
);
CREATE INDEX story_decision_status ON story_decision(status);

CREATE TABLE story_decision_link (
  decision_id INTEGER NOT NULL REFERENCES story_decision(id) ON DELETE CASCADE,
  relation TEXT NOT NULL CHECK (relation IN ('serves','depends_on')),
  sort_order INTEGER NOT NULL,
  target_kind TEXT NOT NULL CHECK (target_kind IN ('promise','decision','thread','scene','content')),
  target_promise_id INTEGER REFERENCES story_promise(id) ON DELETE CASCADE,
  target_decision_id INTEGER REFERENCES story_decision(id) ON DELETE CASCADE,
  target_thread_id INTEGER REFERENCES story_thread(id) ON DELETE CASCADE,
  target_scene_id INTEGER REFERENCES story_scene(id) ON DELETE CASCADE,
  target_path TEXT,
  PRIMARY KEY (decision_id, relation, sort_order)
) WITHOUT ROWID;
`,
  // Phases get the lifecycle acts have, so the user can archive one instead of deleting it.
  `
ALTER TABLE story_phase ADD COLUMN status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active','archived'));
CREATE INDEX story_phase_order ON story_phase(sort_order);
`,
  // The row log of recorded changes (see plot/change-log.ts): before and after images by change id.
  `
CREATE TABLE history_row (
  id INTEGER PRIMARY KEY,
  change_id TEXT NOT NULL,
  tbl TEXT NOT NULL,
  pk TEXT NOT NULL,
  before TEXT,
  after TEXT
);
CREATE INDEX history_row_change ON history_row(change_id, id);
`,
];
