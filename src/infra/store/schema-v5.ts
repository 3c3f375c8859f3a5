/*
 * Schema v5 (issue 38): indexes only, so an older file migrates in place and a read-only opener of an
 * older file reads as before, only slower. A run of 100 000 attempts made two dashboard reads scan
 * the attempts table row by row: trends by day (finished_at with agent, task, verdict, cause) and a
 * run's held-out cards. Both become scans of an index that holds every column they read.
 * Never edit once released; change it with a new migration.
 */
export const SCHEMA_V5 = `
CREATE INDEX attempts_by_finished_tally ON attempts (finished_at, agent, task_id, verdict, cause);
CREATE INDEX attempts_held_out_by_run ON attempts (run_id, agent, held_out_total, held_out_passed, cause) WHERE held_out_total > 0;
`;
