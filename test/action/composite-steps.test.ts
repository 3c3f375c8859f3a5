import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathWithout } from '../helpers/path-without.js';
import { prRepo, ROOT, runAction } from './helpers.js';

/*
 * The Action's composite steps in their order, on a runner without bubblewrap: PATH is a copy of
 * the system's programs with bwrap left out, and apt-get is a stand-in that "installs" the package
 * by putting the real bwrap back on that PATH (this machine cannot lose its bwrap, and the test
 * calls no network). The install step's result, the `crucible` command on PATH, is the built CLI.
 */
interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { runs: { steps: Step[] } };

let root: string;
let bin: string;
let aptLog: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'crucible-action-steps-'));
  bin = pathWithout(join(root, 'bin'), ['bwrap', 'apt-get']);
  aptLog = join(root, 'apt.log');
  writeFileSync(
    join(bin, 'apt-get'),
    `#!/bin/sh\necho "$*" >> ${JSON.stringify(aptLog)}\ncase "$*" in *"install -y -qq bubblewrap"*) ln -s /usr/bin/bwrap ${JSON.stringify(join(bin, 'bwrap'))} ;; esac\n`,
  );
  chmodSync(join(bin, 'apt-get'), 0o755);
  writeFileSync(join(bin, 'crucible'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'bin/crucible.js'))} "$@"\n`);
  chmodSync(join(bin, 'crucible'), 0o755);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function step(match: (s: Step) => boolean, what: string): Step {
  const found = action.runs.steps.find(match);
  if (!found) throw new Error(`action.yml has no step that ${what}`);
  return found;
}

describe('the Action as its composite steps run it, on a runner without bwrap', () => {
  it('installs bubblewrap before Crucible and grades the pull request in it', () => {
    const names = action.runs.steps.map((s) => s.name ?? s.uses ?? s.id);
    const bwrapStep = step((s) => s.run?.includes('install-bwrap.sh') === true, 'runs install-bwrap.sh');
    const runStep = step((s) => s.id === 'crucible', 'is the crucible step');
    expect(names.indexOf(bwrapStep.name)).toBeLessThan(names.indexOf(runStep.name));
    const env = { PATH: bin, GITHUB_ACTION_PATH: ROOT, HOME: root };
    expect(spawnSync('bash', ['-c', 'command -v bwrap'], { env }).status).not.toBe(0);

    const installed = spawnSync('bash', ['-c', bwrapStep.run as string], { env, encoding: 'utf8' });
    expect(installed.status, installed.stderr).toBe(0);
    expect(readFileSync(aptLog, 'utf8')).toContain('install -y -qq bubblewrap');
    expect(installed.stdout).toMatch(/bubblewrap \S+ runs here/);

    // Run again with bwrap there: nothing is installed twice.
    const again = spawnSync('bash', ['-c', bwrapStep.run as string], { env, encoding: 'utf8' });
    expect(again.status, again.stderr).toBe(0);
    expect(readFileSync(aptLog, 'utf8').match(/install -y/g)).toHaveLength(1);

    const repo = prRepo(root, 'edits-test');
    const run = runAction(repo, { mode: 'ci' }, { ...env, GITHUB_BASE_REF: 'main' });
    expect(run.outputs.verdict, run.stderr).toBe('FAIL');
    expect(run.code).toBe(1);
    const ci = JSON.parse(readFileSync(join(run.outputs['report-path'] ?? '', 'ci.json'), 'utf8')) as { sandbox: string; cause: string };
    expect(ci).toMatchObject({ sandbox: 'bwrap', cause: 'tampered' });
    expect(run.stderr).not.toMatch(/unsandboxed/);
    expect(existsSync(join(run.outputs['report-path'] ?? '', 'verdict.junit.xml'))).toBe(true);
  });
});
