/*
 * Schema v2 (issue 14): `crucible ci` and `crucible gate` results, kept next to runs. Only adds a
 * table, so a v1 file migrates forward in place and a read-only opener of a v1 file can still read
 * runs (it just sees no evaluations). Never edit once released; change it with a new migration.
 * `run_id` is not a foreign key: a gate may judge a run recorded in another history file.
 */
export const SCHEMA_V2 = `
CREATE TABLE evaluations (
  id          TEXT PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('ci', 'gate')),
  created_at  TEXT NOT NULL,
  verdict     TEXT NOT NULL CHECK (verdict IN ('PASS', 'FAIL')),
  title       TEXT NOT NULL,
  run_id      TEXT,
  report_dir  TEXT NOT NULL,
  detail      TEXT NOT NULL DEFAULT '{}'
) STRICT;
CREATE INDEX evaluations_by_created ON evaluations (created_at, id);
CREATE INDEX evaluations_by_kind ON evaluations (kind, created_at, id);
`;
