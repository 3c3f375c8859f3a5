// A separate OS process that uses the store the way a parallel `crucible run` would.
// argv: mode (write | read), storeEntry, fixturesEntry, dbPath, goFile, doneFile, workerId, count
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [mode, storeEntry, fixturesEntry, dbPath, goFile, doneFile, workerId, countArg] = process.argv.slice(2);
const { openHistory, HistoryError } = await import(pathToFileURL(storeEntry).href);
const { attempt, runMeta } = await import(pathToFileURL(fixturesEntry).href);

const RUNS = ['run-0', 'run-1', 'run-2'];
const SHARED_EVERY = 5;

function pause(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

// Start together so that opening, migrating and writing really overlap.
while (!existsSync(goFile)) pause(2);

if (mode === 'write') {
  const count = Number(countArg);
  const history = openHistory(dbPath);
  for (const runId of RUNS) history.recordRun(runMeta(runId, { planned: 1000 }));
  for (let i = 0; i < count; i++) {
    const runId = RUNS[i % RUNS.length];
    // Every fifth attempt id is the same in every worker: concurrent upserts of one attempt.
    const attemptId = i % SHARED_EVERY === 0 ? `shared-${i}` : `w${workerId}-${i}`;
    const finishedAt = new Date(Date.UTC(2025, 2, 1, 10, 0, 0, i)).toISOString();
    history.recordAttempt(runId, attempt({ attemptId, runId, index: i, finishedAt, costUsd: null, checks: 3 }));
  }
  history.close();
  process.stdout.write(JSON.stringify({ workerId, written: count }));
} else {
  // A dashboard-like reader: polls while writers write; counts must never go backwards.
  let history;
  while (history === undefined) {
    try {
      history = openHistory(dbPath, { readonly: true });
    } catch (error) {
      if (!(error instanceof HistoryError)) throw error;
      pause(5);
    }
  }
  let reads = 0;
  let last = 0;
  while (!existsSync(doneFile)) {
    const total = history.countAttempts();
    if (total < last) throw new Error(`count went backwards: ${last} -> ${total}`);
    last = total;
    history.listAttempts({ limit: 50 });
    history.listRuns({ limit: 10 });
    reads++;
  }
  history.close();
  process.stdout.write(JSON.stringify({ reads, last }));
}
