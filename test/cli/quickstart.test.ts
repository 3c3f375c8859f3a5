/**
 * `crucible quickstart` on a machine with only Node and git (bwrap and python3 left off PATH,
 * DOCKER_HOST at nothing): it says so in one line, runs the shipped examples unsandboxed, records that in every
 * attempt, and refuses to run a changed copy without a sandbox. Spawned: the PATH the sandbox is
 * looked up on is the process's.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AttemptResult } from '../../src/core/types/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { crucible } from '../helpers/cli.js';
import { pathWithout } from '../helpers/path-without.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
/** Six attempts, and the preflight runs each task's tests once more. */
const QUICKSTART_WORK = 12;
let noSandbox: Record<string, string>;

beforeAll(() => {
  // A machine with only Node and git: no bwrap, no Docker engine, no python3 (so no pytest).
  const python = ['/usr/local/bin', '/usr/bin'].flatMap((d) => (existsSync(d) ? readdirSync(d).filter((n) => n.startsWith('python')) : []));
  noSandbox = { PATH: pathWithout(join(tempDir(), 'bin'), ['bwrap', ...python]), DOCKER_HOST: 'unix:///nonexistent/docker.sock', OPENAI_API_KEY: '' };
});

function runIds(cwd: string): string[] {
  const runs = join(cwd, '.crucible', 'runs');
  return existsSync(runs) ? readdirSync(runs) : [];
}

describe('crucible quickstart without any sandbox', () => {
  it(
    'says so in one line, runs the shipped examples unsandboxed (4/4 PASS without pytest, said so; recorded as local), then refuses a changed copy',
    () => {
      const cwd = tempDir();
      const r = crucible(['quickstart'], { cwd, env: noSandbox, attempts: QUICKSTART_WORK });
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      const warnings = r.stderr.split('\n').filter((l) => /sandbox/i.test(l) && /UNSANDBOXED/.test(l));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /bwrap is not installed.*no Docker engine answers.*recorded as sandbox local.*to sandbox it: sudo apt-get install -y bubblewrap/,
      );
      expect(r.stderr).toMatch(
        /^note python3 with pytest is not here: the Python examples are left out \(to run them too: sudo apt-get install -y python3-pytest\)$/m,
      );
      expect(r.stdout).toMatch(/4\/4 attempts: 4 passed, 0 failed, 0 errored/);
      expect(r.stdout).toContain(
        'npx crucible-harness run crucible-quickstart/tasks.yaml --agent oracle --agent nop --runs 3 --tag javascript --tag typescript',
      );
      expect(existsSync(join(cwd, 'crucible-quickstart', 'tasks.yaml'))).toBe(true);

      const [runId] = runIds(cwd);
      const attemptsDir = join(cwd, '.crucible', 'runs', runId as string, 'attempts');
      const attempts = readdirSync(attemptsDir).map((id) => JSON.parse(readFileSync(join(attemptsDir, id, 'attempt.json'), 'utf8')) as AttemptResult);
      expect(attempts.map((a) => [a.sandbox, a.verdict])).toEqual(Array.from({ length: 4 }, () => ['local', 'PASS']));

      // A copy that is no longer what the package ships may run anything: not without a sandbox.
      appendFileSync(join(cwd, 'crucible-quickstart', 'repos', 'js-slugify', 'src', 'slugify.mjs'), '\n// edited\n');
      const changed = crucible(['quickstart'], { cwd, env: noSandbox });
      expect(changed.status).toBe(2);
      expect(changed.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^error crucible-quickstart\/repos\/js-slugify\/src\/slugify\.mjs: differs from the examples Crucible ships.*no sandbox.*\(fix: remove crucible-quickstart/,
        ),
      ]);
      expect(runIds(cwd)).toEqual([runId]);
    },
    // A hang guard from the work: six attempts and the preflight's six baseline runs, then the refusal.
    attemptBudget(QUICKSTART_WORK) + attemptBudget(0),
  );

  it('refuses a directory of that name that is not a quick start copy, naming what it lacks', () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, 'crucible-quickstart'));
    const r = crucible(['quickstart'], { cwd, env: noSandbox });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error crucible-quickstart: exists but is not a quick start copy \(no tasks\.yaml, .*\(fix: /),
    ]);
    expect(runIds(cwd)).toEqual([]);
  });
});
