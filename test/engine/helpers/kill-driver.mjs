// A child process that runs (or resumes) a run of fast fake attempts with the built engine, so a
// test can SIGKILL it at any moment. argv: engineEntry dir runId start|resume
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fakeAgent, fakeRunner, fakeTasks } from './fake-run.mjs';

const [engineEntry, dir, runId, mode] = process.argv.slice(2);
const { executeRun } = await import(pathToFileURL(engineEntry).href);
const { summary } = await executeRun({
  taskSetFile: 'tasks.yaml',
  taskSetPath: join(dir, 'tasks.yaml'),
  tasks: fakeTasks(dir, 4),
  agents: ['good', 'bad'],
  trials: 4,
  stateDir: join(dir, '.crucible'),
  settings: { sandbox: 'local' },
  concurrency: 3,
  runAttempt: fakeRunner({ delayMs: [10, 50] }),
  resolveAgent: fakeAgent,
  runId,
  ...(mode === 'resume' ? { resume: { runId } } : {}),
});
process.stdout.write(JSON.stringify({ executed: summary.executed, reused: summary.reused }));
