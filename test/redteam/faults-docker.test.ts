/**
 * The attacks that dress an agent's failure as a harness fault, under --sandbox docker, where the
 * supervisor's status travels on the command's own stderr (bwrap's travels on fd 3, which the
 * command never holds: test/redteam/attacks.test.ts covers bwrap). Through runAttempt on the
 * Dockerfile example: neither may end ERROR, and neither fixes anything. docs/redteam.md.
 */
import { cpSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunAgent, ATTACKS, expectedFor } from '../../src/redteam/index.js';
import { loadTaskSet } from '../../src/config/index.js';
import { detectDocker, dockerClient } from '../../src/docker/index.js';
import { runAttempt } from '../../src/engine/attempt.js';
import { resolveEnvironments, type ResolvedEnvironment } from '../../src/environment/index.js';
import { describeExpectation, meetsAttackExpectation } from '../../src/grading/validity.js';
import type { Task } from '../../src/types/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const client = dockerClient();
let imageId = '';

beforeAll(async () => {
  const docker = await detectDocker(client);
  if (!docker.ok) throw new Error(`these tests need a Docker engine: ${docker.reason} (fix: ${docker.fix})`);
});

afterAll(async () => {
  if (imageId)
    await client
      .getImage(imageId)
      .remove({ force: true })
      .catch(() => undefined);
});

describe('fault-forging attacks under --sandbox docker', () => {
  it.each(['forged-supervisor-status', 'fault-words-filename'])(
    '%s ends as the catalogue says, never ERROR',
    async (name) => {
      const dir = tempDir();
      cpSync(resolve('examples/docker'), dir, { recursive: true });
      writeFileSync(join(dir, 'env', 'nonce.txt'), randomBytes(8).toString('hex'));
      const task = loadTaskSet(join(dir, 'tasks.yaml')).tasks[0] as Task;
      const resolved = await resolveEnvironments([task]);
      const env = resolved.get(task.id);
      if (!env?.ok) throw new Error(`environment not resolved: ${JSON.stringify(env)}`);
      imageId = env.environment.imageId;
      const attack = ATTACKS.find((a) => a.name === name);
      if (!attack) throw new Error(`no attack ${name}`);
      expect(attack.appliesTo(task)).toBe(true);
      const stateDir = join(dir, '.crucible');
      const plan = { attemptId: `${task.id}.${name}`, runId: 'r', taskId: task.id, taskVersion: task.version, agent: name, trial: 0, index: 0 };
      const environments = new Map<string, ResolvedEnvironment>([[task.id, env.environment]]);
      const a = await runAttempt(plan, task, resolveRunAgent(name), { runDir: join(stateDir, 'runs', 'r'), stateDir, sandbox: 'docker', environments });
      const expected = expectedFor(attack, task);
      expect({ verdict: a.verdict, cause: a.cause, message: a.message, ok: meetsAttackExpectation(expected, a) }, describeExpectation(expected)).toMatchObject({
        ok: true,
      });
      expect(a.verdict).not.toBe('ERROR');
    },
    attemptBudget(2),
  );
});
