/*
 * Schema v6 (issue 38): tallies kept beside the attempts, so the dashboard's aggregate reads cost
 * the number of runs, days, agents and tasks, not the number of attempts. A run of 100 000 attempts
 * made the runs list, day trends, a run's heatmap and a comparison count every attempt on every
 * request.
 *
 * - agent_tallies: per run, finish day and agent, the verdicts and the pass-rate tally of
 *   aggregates.ts (the runs list's counts, trends by day or run, a run's total).
 * - attempt_tallies: the same split by task too (a run's cells, trends per task or of one task).
 * - runs.stats_head: the stored statistics without their cells (which are attempt_tallies' rows):
 *   a run page reads 100 KB, not the 5 MB of 25 000 cells.
 *
 * Triggers keep the tallies in step with the attempts table in the writer's own transaction,
 * whatever writes it (record, re-record, delete, a run deleted with its attempts), so a live run is
 * tallied too and nothing has to remember to update them. The migration fills them from what is
 * already there: an older history is tallied once, when a writer first opens it.
 * Never edit once released; change it with a new migration.
 */

// UNSCORED_SQL of aggregates.ts over a given row alias (NEW / OLD / a).
const unscored = (row: string): string => `${row}.cause IN ('harness_error', 'task_error', 'provider_error')`;

const VERDICT_DELTA = (row: string, sign: string): string =>
  `pass = pass ${sign} (${row}.verdict = 'PASS'), fail = fail ${sign} (${row}.verdict = 'FAIL'), error = error ${sign} (${row}.verdict = 'ERROR')`;

const TALLY_DELTA = (row: string, sign: string): string =>
  `attempts = attempts ${sign} 1, n = n ${sign} (NOT ${unscored(row)}), passes = passes ${sign} (${row}.verdict = 'PASS' AND NOT ${unscored(row)}),
   errors = errors ${sign} (${unscored(row)}), provider_errors = provider_errors ${sign} (${row}.cause = 'provider_error')`;

const TALLY_VALUES = (row: string): string =>
  `1, NOT ${unscored(row)}, ${row}.verdict = 'PASS' AND NOT ${unscored(row)}, ${unscored(row)}, ${row}.cause = 'provider_error'`;

const DAY = (row: string): string => `substr(${row}.finished_at, 1, 10)`;
const agentKey = (row: string): string => `run_id = ${row}.run_id AND agent = ${row}.agent AND day = ${DAY(row)}`;
const cellKey = (row: string): string => `${agentKey(row)} AND task_id = ${row}.task_id`;

const TALLY_COLUMNS = 'attempts, n, passes, errors, provider_errors';

function addStatements(row: string): string {
  return `
  INSERT INTO agent_tallies (run_id, agent, day, ${TALLY_COLUMNS}, pass, fail, error)
    VALUES (${row}.run_id, ${row}.agent, ${DAY(row)}, ${TALLY_VALUES(row)}, ${row}.verdict = 'PASS', ${row}.verdict = 'FAIL', ${row}.verdict = 'ERROR')
    ON CONFLICT (run_id, agent, day) DO UPDATE SET ${TALLY_DELTA(row, '+')}, ${VERDICT_DELTA(row, '+')};
  INSERT INTO attempt_tallies (run_id, task_id, agent, day, ${TALLY_COLUMNS})
    VALUES (${row}.run_id, ${row}.task_id, ${row}.agent, ${DAY(row)}, ${TALLY_VALUES(row)})
    ON CONFLICT (run_id, task_id, agent, day) DO UPDATE SET ${TALLY_DELTA(row, '+')};`;
}

function removeStatements(row: string): string {
  return `
  UPDATE agent_tallies SET ${TALLY_DELTA(row, '-')}, ${VERDICT_DELTA(row, '-')} WHERE ${agentKey(row)};
  DELETE FROM agent_tallies WHERE ${agentKey(row)} AND attempts <= 0;
  UPDATE attempt_tallies SET ${TALLY_DELTA(row, '-')} WHERE ${cellKey(row)};
  DELETE FROM attempt_tallies WHERE ${cellKey(row)} AND attempts <= 0;`;
}

const TALLY_SUMS = `count(*), sum(NOT ${unscored('a')}), sum(a.verdict = 'PASS' AND NOT ${unscored('a')}), sum(${unscored('a')}), sum(a.cause = 'provider_error')`;

/** The stored statistics with their cells left out (the shape stays valid: an empty list), bare or under `stats`. */
export const STATS_HEAD_SQL = (column: string): string => `CASE
  WHEN NOT json_valid(${column}) THEN ${column}
  WHEN json_type(${column}, '$.cells') = 'array' THEN json_set(${column}, '$.cells', json('[]'))
  WHEN json_type(${column}, '$.stats.cells') = 'array' THEN json_set(${column}, '$.stats.cells', json('[]'))
  ELSE ${column} END`;

const TALLY_COLUMN_DEFS = ['attempts', 'n', 'passes', 'errors', 'provider_errors'].map((c) => `  ${c} INTEGER NOT NULL,`).join('\n');

export const SCHEMA_V6 = `
CREATE TABLE agent_tallies (
  run_id          TEXT NOT NULL,
  agent           TEXT NOT NULL,
  day             TEXT NOT NULL,
${TALLY_COLUMN_DEFS}
  pass            INTEGER NOT NULL,
  fail            INTEGER NOT NULL,
  error           INTEGER NOT NULL,
  PRIMARY KEY (run_id, agent, day)
) STRICT, WITHOUT ROWID;
CREATE INDEX agent_tallies_by_day ON agent_tallies (day, agent, run_id);

CREATE TABLE attempt_tallies (
  run_id          TEXT NOT NULL,
  task_id         TEXT NOT NULL,
  agent           TEXT NOT NULL,
  day             TEXT NOT NULL,
${TALLY_COLUMN_DEFS}
  PRIMARY KEY (run_id, task_id, agent, day)
) STRICT, WITHOUT ROWID;
CREATE INDEX attempt_tallies_by_task ON attempt_tallies (task_id, day, agent, run_id);
CREATE INDEX attempt_tallies_by_run_agent ON attempt_tallies (run_id, agent, task_id, day);
CREATE INDEX attempt_tallies_by_day ON attempt_tallies (day, agent, task_id, run_id);

INSERT INTO agent_tallies (run_id, agent, day, ${TALLY_COLUMNS}, pass, fail, error)
  SELECT a.run_id, a.agent, ${DAY('a')}, ${TALLY_SUMS}, sum(a.verdict = 'PASS'), sum(a.verdict = 'FAIL'), sum(a.verdict = 'ERROR')
  FROM attempts a GROUP BY a.run_id, a.agent, ${DAY('a')};
INSERT INTO attempt_tallies (run_id, task_id, agent, day, ${TALLY_COLUMNS})
  SELECT a.run_id, a.task_id, a.agent, ${DAY('a')}, ${TALLY_SUMS}
  FROM attempts a GROUP BY a.run_id, a.task_id, a.agent, ${DAY('a')};

CREATE TRIGGER attempts_tally_insert AFTER INSERT ON attempts BEGIN${addStatements('NEW')}
END;
CREATE TRIGGER attempts_tally_delete AFTER DELETE ON attempts BEGIN${removeStatements('OLD')}
END;
CREATE TRIGGER attempts_tally_update AFTER UPDATE OF run_id, task_id, agent, finished_at, verdict, cause ON attempts BEGIN${removeStatements('OLD')}${addStatements('NEW')}
END;

ALTER TABLE runs ADD COLUMN stats_head TEXT;
UPDATE runs SET stats_head = ${STATS_HEAD_SQL('summary')} WHERE summary IS NOT NULL;
`;
