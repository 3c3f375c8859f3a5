/*
 * Schema v1. Once released, a migration is never edited: change the schema with a new one.
 * STRICT tables so a wrong type from a caller fails loudly instead of being stored as text.
 * Timestamps are UTC ISO strings (see time.ts); JSON columns hold text written by JSON.stringify.
 */
export const SCHEMA_V1 = `
CREATE TABLE runs (
  run_id        TEXT PRIMARY KEY,
  task_set      TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  finished_at   TEXT,
  planned       INTEGER NOT NULL,
  executed      INTEGER NOT NULL DEFAULT 0,
  stopped_early INTEGER NOT NULL DEFAULT 0 CHECK (stopped_early IN (0, 1)),
  config_hash   TEXT,
  agents        TEXT NOT NULL DEFAULT '[]',
  counts        TEXT,
  summary       TEXT
) STRICT;
CREATE INDEX runs_by_created ON runs (created_at, run_id);

CREATE TABLE attempts (
  attempt_id      TEXT PRIMARY KEY,
  run_id          TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  task_id         TEXT NOT NULL,
  task_version    TEXT NOT NULL,
  agent           TEXT NOT NULL,
  trial           INTEGER NOT NULL,
  plan_index      INTEGER NOT NULL,
  verdict         TEXT NOT NULL CHECK (verdict IN ('PASS', 'FAIL', 'ERROR')),
  cause           TEXT NOT NULL,
  message         TEXT NOT NULL,
  score           REAL,
  sandbox         TEXT NOT NULL,
  started_at      TEXT NOT NULL,
  finished_at     TEXT NOT NULL,
  prepare_ms      INTEGER NOT NULL,
  agent_ms        INTEGER NOT NULL,
  verify_ms       INTEGER NOT NULL,
  total_ms        INTEGER NOT NULL,
  f2p_passed      INTEGER,
  f2p_total       INTEGER,
  p2p_passed      INTEGER,
  p2p_total       INTEGER,
  held_out_passed INTEGER,
  held_out_total  INTEGER,
  files_changed   INTEGER,
  lines_added     INTEGER,
  lines_deleted   INTEGER,
  stop_reason     TEXT,
  turns           INTEGER,
  tool_calls      INTEGER,
  repo_key        TEXT,
  category        TEXT,
  difficulty      TEXT,
  schema_version  INTEGER NOT NULL
) STRICT;
-- attempt_id closes every index so keyset pagination has a total order without a sort step.
CREATE INDEX attempts_by_run_plan       ON attempts (run_id, plan_index, attempt_id);
CREATE INDEX attempts_by_agent_task     ON attempts (agent, task_id, finished_at, attempt_id);
CREATE INDEX attempts_by_agent_finished ON attempts (agent, finished_at, attempt_id);
CREATE INDEX attempts_by_task_finished  ON attempts (task_id, finished_at, attempt_id);
CREATE INDEX attempts_by_finished       ON attempts (finished_at, attempt_id);
CREATE INDEX attempts_by_verdict        ON attempts (verdict, finished_at, attempt_id);
CREATE INDEX attempts_by_cause          ON attempts (cause, finished_at, attempt_id);
-- Covers per-run tallies, cells and run trends without touching the table.
CREATE INDEX attempts_by_run_cell       ON attempts (run_id, agent, task_id, verdict, cause);

-- The full attempt.json lives apart from the attempts row: it can be kilobytes (test output
-- tails), and keeping it out of the row keeps scans for lists and aggregates narrow.
CREATE TABLE attempt_documents (
  attempt_id TEXT PRIMARY KEY REFERENCES attempts (attempt_id) ON DELETE CASCADE,
  json       TEXT NOT NULL
) STRICT;

CREATE TABLE checks (
  attempt_id TEXT NOT NULL REFERENCES attempts (attempt_id) ON DELETE CASCADE,
  position   INTEGER NOT NULL,
  check_id   TEXT NOT NULL,
  passed     INTEGER NOT NULL CHECK (passed IN (0, 1)),
  severity   TEXT NOT NULL,
  message    TEXT NOT NULL,
  evidence   TEXT NOT NULL,
  PRIMARY KEY (attempt_id, position)
) STRICT;

CREATE TABLE usage (
  attempt_id         TEXT PRIMARY KEY REFERENCES attempts (attempt_id) ON DELETE CASCADE,
  input_tokens       INTEGER NOT NULL,
  output_tokens      INTEGER NOT NULL,
  cache_read_tokens  INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL,
  reasoning_tokens   INTEGER NOT NULL,
  requests           INTEGER NOT NULL,
  cost_usd           REAL -- NULL means the price is unknown; never written as 0 for that
) STRICT;
`;
