/**
 * The attacks that dress an agent's failure as a harness fault, under --sandbox docker, where the
 * supervisor's status travels on the command's own stderr (bwrap's travels on fd 3, which the
 * command never holds: test/redteam/attacks.test.ts covers bwrap). Through runAttempt on the
 * Dockerfile example: neither may end ERROR, and neither fixes anything. docs/redteam.md.
 * Both attacks run on one copy of the example and its one image, after one shared preflight: what
 * differs between them is the agent, not the environment.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunAgent, ATTACKS, expectedFor } from '../../src/domain/redteam/index.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { detectDocker, dockerClient } from '../../src/infra/docker/index.js';
import { runAttempt } from '../../src/engine/attempt.js';
import { resolveEnvironments, type ResolvedEnvironment } from '../../src/domain/environment/index.js';
import { describeExpectation, meetsAttackExpectation } from '../../src/domain/grading/validity.js';
import type { AttemptResult, Task } from '../../src/core/types/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { inPool, shareBaselines } from './helpers/shared-run.js';

const client = dockerClient();
let dir = '';
let task: Task;
let environment: ResolvedEnvironment | undefined;

beforeAll(async () => {
  const docker = await detectDocker(client);
  if (!docker.ok) throw new Error(`these tests need a Docker engine: ${docker.reason} (fix: ${docker.fix})`);
  dir = mkdtempSync(join(tmpdir(), 'crucible-test-'));
  cpSync(resolve('examples/docker'), dir, { recursive: true });
  // A nonce in the build context, so that the image is this file's own.
  writeFileSync(join(dir, 'env', 'nonce.txt'), randomBytes(8).toString('hex'));
  task = loadTaskSet(join(dir, 'tasks.yaml')).tasks[0] as Task;
  const resolved = (await resolveEnvironments([task])).get(task.id);
  if (!resolved?.ok) throw new Error(`environment not resolved: ${JSON.stringify(resolved)}`);
  environment = resolved.environment;
}, attemptBudget(1));

afterAll(async () => {
  if (environment)
    await client
      .getImage(environment.imageId)
      .remove({ force: true })
      .catch(() => undefined);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const NAMES = ['forged-supervisor-status', 'fault-words-filename'];
const results = new Map<string, AttemptResult>();

// Both attempts in one run: the task's tree and baseline tests taken once by the preflight in the
// image, as `crucible run` does; each attempt starts from its own copy of them.
beforeAll(async () => {
  if (!environment) throw new Error('the environment was not resolved');
  const stateDir = join(dir, '.crucible');
  const runDir = join(stateDir, 'runs', 'r');
  const environments = new Map<string, ResolvedEnvironment>([[task.id, environment]]);
  const shared = await shareBaselines([task], { stateDir, runDir, sandbox: 'docker', oracle: false, environments });
  try {
    await inPool(NAMES, async (name, index) => {
      const plan = { attemptId: `${task.id}.${name}`, runId: 'r', taskId: task.id, taskVersion: task.version, agent: name, trial: 0, index };
      const env = { runDir, stateDir, sandbox: 'docker' as const, environments, taskBaselines: shared.taskBaselines };
      results.set(name, await runAttempt(plan, task, resolveRunAgent(name), env));
    });
  } finally {
    await shared.remove();
  }
}, attemptBudget(5));

describe('fault-forging attacks under --sandbox docker', () => {
  it.each(NAMES)('%s ends as the catalogue says, never ERROR', (name) => {
    const attack = ATTACKS.find((a) => a.name === name);
    if (!attack) throw new Error(`no attack ${name}`);
    expect(attack.appliesTo(task)).toBe(true);
    const a = results.get(name);
    if (!a) throw new Error(`no attempt of ${name}`);
    const expected = expectedFor(attack, task);
    expect({ verdict: a.verdict, cause: a.cause, message: a.message, ok: meetsAttackExpectation(expected, a) }, describeExpectation(expected)).toMatchObject({
      ok: true,
    });
    expect(a.verdict).not.toBe('ERROR');
  });
});
