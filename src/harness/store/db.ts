import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import { openVersionedDb } from "../../core/sqlite.js";

type Db = Database.Database;

/** Schema version this code writes; a newer file is refused rather than misread. */
export const STORE_SCHEMA_VERSION = 7;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  profile_key TEXT NOT NULL,
  project TEXT,
  title TEXT NOT NULL DEFAULT '',
  initial_mode TEXT NOT NULL,
  mode TEXT NOT NULL,
  model TEXT,
  initial TEXT NOT NULL,
  status TEXT NOT NULL,
  parent_session_id INTEGER REFERENCES sessions(id),
  leaf_id INTEGER,
  entry_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  -- store-wide counter bumped by every write to the session: a total "recently active" order
  activity INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_activity ON sessions(activity);
CREATE INDEX IF NOT EXISTS sessions_by_project ON sessions(project, activity);

-- The append-only entry tree. mode = the mode in effect after this entry; tasks_ref = the nearest
-- task_list entry at or above it. Both are inherited from the parent on append, so the leaf alone
-- answers "which mode / which task list" for any branch in O(1).
-- seg = the linear segment the entry belongs to: an entry joins its parent's segment when it is the
-- parent's first child, else it starts a new one (seg = its own id). A segment is a chain ordered
-- by id, so the active path is a few index range scans (one per branch point), not one lookup per entry.
CREATE TABLE IF NOT EXISTS entries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  parent_id INTEGER REFERENCES entries(id),
  depth INTEGER NOT NULL,
  kind TEXT NOT NULL,
  mode TEXT NOT NULL,
  tasks_ref INTEGER,
  seg INTEGER NOT NULL,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_by_parent ON entries(parent_id);
CREATE INDEX IF NOT EXISTS entries_by_session ON entries(session_id, id);
CREATE INDEX IF NOT EXISTS entries_by_seg ON entries(seg, id);
-- The latest entry of a kind on a path (a compaction, a task list, the latest run start) in one
-- lookup per segment, however long the session (version 7).
CREATE INDEX IF NOT EXISTS entries_by_seg_kind ON entries(seg, kind, id);

-- A durable approval; its id is the approval_request entry's id.
CREATE TABLE IF NOT EXISTS approvals (
  id INTEGER PRIMARY KEY REFERENCES entries(id),
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  call_id TEXT NOT NULL,
  tool_key TEXT NOT NULL,
  kind TEXT NOT NULL,
  input TEXT NOT NULL,
  preview TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  reason TEXT,
  created_at TEXT NOT NULL,
  settled_at TEXT
);
CREATE INDEX IF NOT EXISTS approvals_by_status ON approvals(session_id, status);

CREATE TABLE IF NOT EXISTS queue_items (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  kind TEXT NOT NULL,
  text TEXT NOT NULL,
  created_at TEXT NOT NULL,
  consumed_at TEXT,
  consumed_by INTEGER REFERENCES entries(id)
);
CREATE INDEX IF NOT EXISTS queue_open ON queue_items(session_id, kind, id) WHERE consumed_at IS NULL;

-- Background jobs (src/jobs). runner = the process running it (host:pid:start), so another process
-- can tell a dead runner's jobs (interrupted) from a live one's. Listed newest first by rowid.
CREATE TABLE IF NOT EXISTS jobs (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  title TEXT NOT NULL,
  owner_session_id INTEGER REFERENCES sessions(id),
  origin_call_id TEXT,
  ref TEXT,
  status TEXT NOT NULL,
  preview TEXT NOT NULL DEFAULT '',
  result TEXT,
  error TEXT,
  runner TEXT NOT NULL,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  delivery_id TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  started_at TEXT,
  ended_at TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_by_owner ON jobs(owner_session_id);
CREATE INDEX IF NOT EXISTS jobs_active ON jobs(runner) WHERE status IN ('queued', 'running', 'waiting');

-- The process running each running session (host:pid:start, as jobs.runner), so another process
-- can tell a session left running by a dead process (interrupted: closed, then it goes on) from one
-- a live process runs (not run twice). A row exists only while the session's status is running.
CREATE TABLE IF NOT EXISTS session_runners (
  session_id INTEGER PRIMARY KEY REFERENCES sessions(id),
  runner TEXT NOT NULL,
  since TEXT NOT NULL
);

-- Flow-back: one row per delivery id, written in the transaction that queues its follow-up, so a
-- delivery is queued once however many processes try.
CREATE TABLE IF NOT EXISTS deliveries (
  id TEXT PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  job_id TEXT REFERENCES jobs(id),
  queue_item_id INTEGER NOT NULL REFERENCES queue_items(id),
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS deliveries_by_session ON deliveries(session_id);

-- Collaboration: the link a parent session holds to each child it created (one creator per child).
CREATE TABLE IF NOT EXISTS agent_links (
  child_session_id INTEGER PRIMARY KEY REFERENCES sessions(id),
  parent_session_id INTEGER NOT NULL REFERENCES sessions(id),
  linked_at TEXT NOT NULL,
  detached_at TEXT
);
CREATE INDEX IF NOT EXISTS agent_links_by_parent ON agent_links(parent_session_id, child_session_id);

-- Per-session counters kept by every append, so resuming a session reads no history to know them.
-- model_calls = assistant and compaction entries over all branches (where a scripted model resumes).
-- A store from before the table is counted once, as it is upgraded.
CREATE TABLE IF NOT EXISTS session_counters (
  session_id INTEGER PRIMARY KEY REFERENCES sessions(id),
  model_calls INTEGER NOT NULL DEFAULT 0
);
INSERT OR IGNORE INTO session_counters (session_id, model_calls)
  SELECT session_id, COUNT(*) FROM entries WHERE kind IN ('assistant', 'compaction') GROUP BY session_id;
-- One row per model call: what it was sent (the manifest, JSON), the usage the provider reported
-- and its cost in the price's currency (null: no price). seq numbers a session's calls from 1;
-- day is the UTC date, for the per-project daily sums and budgets.
CREATE TABLE IF NOT EXISTS model_calls (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  seq INTEGER NOT NULL,
  run_id TEXT NOT NULL,
  project TEXT,
  model TEXT NOT NULL,
  purpose TEXT NOT NULL,
  day TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cache_read_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  reported INTEGER NOT NULL,
  cost REAL,
  currency TEXT,
  manifest TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (session_id, seq)
);
CREATE INDEX IF NOT EXISTS model_calls_by_project_day ON model_calls(project, day);
CREATE INDEX IF NOT EXISTS model_calls_by_day ON model_calls(day);
-- A session's own budget, set by the user (nbook sessions budget): it replaces budgets.session of
-- the config for that session. limit_json is a budget limit ({usd?, cny?, tokens?}) or null (lifted).
CREATE TABLE IF NOT EXISTS session_budgets (
  session_id INTEGER PRIMARY KEY REFERENCES sessions(id),
  limit_json TEXT,
  set_at TEXT NOT NULL
);
`;

/** Open (creating if needed) the agent database in WAL mode and bring its schema up to date. */
export function openAgentDb(file: string): Db {
  mkdirSync(dirname(file), { recursive: true });
  return openVersionedDb({ what: "the session store", file, version: STORE_SCHEMA_VERSION, sql: SCHEMA });
}
