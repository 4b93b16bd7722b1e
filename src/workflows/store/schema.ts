import { z } from "zod";

/** Version of workflows.sqlite's schema (PRAGMA user_version). */
export const WORKFLOWS_DB_VERSION = 1;

export const WORKFLOWS_DB_SQL = `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  workflow_key TEXT NOT NULL,
  title TEXT NOT NULL,
  file TEXT NOT NULL,
  source TEXT NOT NULL,
  phases TEXT NOT NULL,
  args TEXT NOT NULL,
  project TEXT,
  caller_session_id TEXT,
  model TEXT,
  mode TEXT NOT NULL,
  status TEXT NOT NULL,
  budget TEXT NOT NULL,
  concurrency TEXT NOT NULL,
  usage TEXT NOT NULL DEFAULT '{"invocations":0,"tokens":0}',
  result TEXT,
  error TEXT,
  progress TEXT,
  logs TEXT NOT NULL DEFAULT '[]',
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  owner TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  ended_at INTEGER
);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status, updated_at);
CREATE TABLE IF NOT EXISTS journal (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  pos INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  fp TEXT NOT NULL,
  ok INTEGER NOT NULL,
  value TEXT,
  error TEXT,
  started_at INTEGER NOT NULL,
  ended_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, pos),
  UNIQUE (run_id, seq)
);
CREATE TABLE IF NOT EXISTS asks (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  key TEXT NOT NULL,
  fp TEXT NOT NULL,
  spec TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS participants (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL,
  profile_key TEXT NOT NULL,
  title TEXT NOT NULL,
  ephemeral INTEGER NOT NULL,
  output_schema TEXT,
  model TEXT,
  tag TEXT,
  PRIMARY KEY (run_id, session_id)
);
CREATE TABLE IF NOT EXISTS tagged_agents (
  project TEXT NOT NULL,
  caller TEXT NOT NULL,
  profile_key TEXT NOT NULL,
  tag TEXT NOT NULL,
  session_id TEXT NOT NULL,
  output_schema TEXT,
  model TEXT,
  PRIMARY KEY (project, caller, profile_key, tag)
);
`;

export const RunStatusSchema = z.enum(["running", "waiting", "completed", "failed", "cancelled"]);
export type WorkflowRunStatus = z.infer<typeof RunStatusSchema>;

/** Spending of a run so far. */
export const UsageSchema = z.object({ invocations: z.number().int(), tokens: z.number().int() }).strict();
export type RunUsage = z.infer<typeof UsageSchema>;
