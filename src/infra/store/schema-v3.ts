/*
 * Schema v3 (issue 18): what a run was for. `crucible validate` runs are recorded like `crucible
 * run`'s, marked `validate`. Only adds a column with a default, so a v1/v2 file migrates in place;
 * a read-only opener of an older file reads every run as `run` (read-runs.ts checks the column).
 * Never edit once released; change it with a new migration.
 */
export const SCHEMA_V3 = `
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'run' CHECK (kind IN ('run', 'validate'));
`;
