/*
 * Schema v4 (issue 36): an evaluation's verdict may be ERROR (`crucible ci` whose test command gave
 * no report at head nor at base: no verdict on the change). SQLite cannot alter a CHECK, so the
 * table is rebuilt with its rows and indexes. Never edit once released; change it with a new migration.
 */
export const SCHEMA_V4 = `
CREATE TABLE evaluations_v4 (
  id          TEXT PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('ci', 'gate')),
  created_at  TEXT NOT NULL,
  verdict     TEXT NOT NULL CHECK (verdict IN ('PASS', 'FAIL', 'ERROR')),
  title       TEXT NOT NULL,
  run_id      TEXT,
  report_dir  TEXT NOT NULL,
  detail      TEXT NOT NULL DEFAULT '{}'
) STRICT;
INSERT INTO evaluations_v4 (id, kind, created_at, verdict, title, run_id, report_dir, detail)
  SELECT id, kind, created_at, verdict, title, run_id, report_dir, detail FROM evaluations;
DROP TABLE evaluations;
ALTER TABLE evaluations_v4 RENAME TO evaluations;
CREATE INDEX evaluations_by_created ON evaluations (created_at, id);
CREATE INDEX evaluations_by_kind ON evaluations (kind, created_at, id);
`;
