import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRewardJson, parseRewardText, readReward } from '../../src/domain/evidence/index.js';
import { sandboxTraits, type Executor } from '../../src/infra/sandbox/index.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();

describe('reward files are read strictly', () => {
  it('takes a plain decimal in [0, 1] from reward.txt and nothing else', () => {
    expect(parseRewardText('1\n')).toEqual({ reward: 1 });
    expect(parseRewardText(' 0.5 ')).toEqual({ reward: 0.5 });
    expect(parseRewardText('1.0')).toEqual({ reward: 1 });
    expect(parseRewardText('0')).toEqual({ reward: 0 });
    for (const bad of ['', '1.5', '2', '-0', '-1', '1e0', '0x1', 'NaN', 'Infinity', 'true', '1 1', '.5', '1.', 'pass'])
      expect(parseRewardText(bad), bad).toHaveProperty('problem');
  });

  it('takes the "reward" number of reward.json', () => {
    expect(parseRewardJson('{"reward": 1, "tests": 3}')).toEqual({ reward: 1 });
    expect(parseRewardJson('{"reward": 0.25}')).toEqual({ reward: 0.25 });
    for (const bad of ['1', '{"reward": "1"}', '{"reward": 1.5}', '{"score": 1}', '[1]', 'not json', '{"reward": -0.1}'])
      expect(parseRewardJson(bad), bad).toHaveProperty('problem');
  });

  it('prefers reward.txt, never follows a symlink, and tells none from unreadable', async () => {
    const dir = tempDir();
    expect(await readReward(dir)).toEqual({ absent: true });
    writeFileSync(join(dir, 'reward.json'), '{"reward": 0.5}');
    expect(await readReward(dir)).toEqual({ reward: 0.5 });
    writeFileSync(join(dir, 'reward.txt'), '1');
    expect(await readReward(dir)).toEqual({ reward: 1 });

    const linked = tempDir();
    const elsewhere = join(tempDir(), 'forged.txt');
    writeFileSync(elsewhere, '1');
    symlinkSync(elsewhere, join(linked, 'reward.txt'));
    expect(await readReward(linked)).toHaveProperty('problem');

    const directory = tempDir();
    mkdirSync(join(directory, 'reward.txt'));
    expect(await readReward(directory)).toHaveProperty('problem');

    // A FIFO with no writer: a blocking open would never return.
    const fifo = tempDir();
    execFileSync('mkfifo', [join(fifo, 'reward.txt')]);
    expect(await readReward(fifo)).toHaveProperty('problem');
  });
});

describe('runRewardVerifier and the supervisor channel', () => {
  it("keeps the executor's forged-report finding as evidence, as a test run does", async () => {
    const { runRewardVerifier } = await import('../../src/domain/evidence/reward.js');
    const root = tempDir();
    const workspace = join(root, 'ws');
    const results = join(root, 'results');
    mkdirSync(workspace, { recursive: true });
    mkdirSync(results, { recursive: true });
    const executor: Executor = {
      kind: 'local',
      capabilities: { ...sandboxTraits('local'), limits: [] },
      exec: () =>
        Promise.resolve({
          exitCode: 0,
          signal: null,
          stdout: '',
          stderr: '',
          truncated: false,
          timedOut: false,
          durationMs: 1,
          forgedReport: 'a second exit record',
        }),
      close: () => Promise.resolve(),
    };
    const { evidence } = await runRewardVerifier({ executor, workspace, command: 'true', resultsDir: results, timeoutMs: 10_000 });
    expect(evidence.forgedReport).toBe('a second exit record');
  });
});
