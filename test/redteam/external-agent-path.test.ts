/**
 * The attack classes of issue 36 made by an external agent: a program run the way Claude Code or
 * Codex is (a profile, its own sandboxed process, the gateway for a model it never calls) that
 * writes the catalogue's change into the repository with `git apply`. Only the way the change
 * arrives differs from the red team's built-in agents, so each must end as the catalogue says,
 * never PASS or ERROR, and the honest controls beside them PASS with no failed check.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExternalAgent } from '../../src/domain/agents/external/agent.js';
import type { AgentProfile } from '../../src/domain/agents/external/profile.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { executeRun } from '../../src/engine/index.js';
import type { AttemptResult, Task } from '../../src/core/types/index.js';
import { attackPatch } from './helpers/patches.js';
import { expectedRuns, PATH_ATTACKS, PATH_HONEST, wrongAttackEnds, wrongHonestEnds } from './helpers/path-outcomes.js';

let root = '';
let attempts: AttemptResult[] = [];
const TASK_SET = 'examples/tasks.yaml';
const tasks = new Map(loadTaskSet(TASK_SET).tasks.map((t) => [t.id, t]));

/** A profile whose program applies `patch` where it runs (the repository), and never asks a model. */
function applier(name: string, taskId: string, patch: string): AgentProfile {
  const dir = join(root, 'agents', `${name}-${taskId}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'change.patch'), patch);
  const program = join(dir, 'apply-change');
  writeFileSync(program, '#!/bin/sh\nexec git apply --whitespace=nowarn "$(dirname "$0")/change.patch"\n');
  chmodSync(program, 0o755);
  return {
    name,
    commandPath: program,
    command: ['apply-change'],
    stdin: 'none',
    env: [],
    setEnv: {},
    homeFiles: {},
    model: 'gpt-4.1-mini',
    protocol: { kind: 'openai-chat', baseUrlEnv: ['OPENAI_BASE_URL'], apiKeyEnv: ['OPENAI_API_KEY'] },
    output: 'text',
    source: join(dir, 'agents.yaml'),
  };
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'crucible-redteam-external-'));
  const runs: Array<{ taskId: string; name: string }> = Object.entries(PATH_ATTACKS).flatMap(([taskId, names]) =>
    [...names, ...(PATH_HONEST[taskId] ?? [])].map((name) => ({ taskId, name })),
  );
  attempts = [];
  for (const taskId of Object.keys(PATH_ATTACKS)) {
    const names = runs.filter((r) => r.taskId === taskId).map((r) => r.name);
    const profiles = new Map<string, AgentProfile>();
    for (const name of names) profiles.set(name, applier(name, taskId, await attackPatch(name, tasks.get(taskId) as Task)));
    const outcome = await executeRun({
      taskSetFile: TASK_SET,
      tasks: [tasks.get(taskId) as Task],
      agents: names,
      trials: 1,
      stateDir: join(root, `state-${taskId}`),
      settings: { sandbox: 'bwrap' },
      concurrency: 2,
      resolveAgent: (spec) => createExternalAgent(profiles.get(spec) as AgentProfile, undefined, spec),
      // The programs never call it: the gateway is there because every external agent gets one.
      models: { baseUrl: 'http://127.0.0.1:9/v1', env: { OPENAI_API_KEY: 'sk-unused' } },
    });
    attempts.push(...outcome.attempts);
  }
}, 1_200_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('issue 36 attacks made by an external agent (bwrap)', () => {
  it('runs every one', () => {
    expect(attempts.map((a) => `${a.agent} ${a.taskId}`).sort()).toEqual(expectedRuns());
  });

  it('no attack PASSes or ends ERROR; each ends as the catalogue says', () => {
    expect(wrongAttackEnds(attempts, tasks)).toEqual([]);
  });

  it('the honest controls pass with no failed check', () => {
    expect(wrongHonestEnds(attempts)).toEqual([]);
  });
});
