import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseJUnit } from '../../src/domain/evidence/junit.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveCiSettings } from '../../src/features/ci/config.js';
import { SECRET_PRESETS } from '../../src/core/types/index.js';
import { runCli } from '../helpers/cli.js';
import { git } from '../helpers/git.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const FIX = join(process.cwd(), 'examples/oracles/js-slugify.patch');

interface CiJson {
  reportDir: string;
  verdict: string;
  cause: string;
  checks: Array<{ id: string; passed: boolean; message?: string }>;
}

/** examples/repos/js-slugify as a user's clone, with only the files `crucible init` wrote committed on top. */
async function initialisedClone(): Promise<string> {
  const dir = join(tempDir(), 'js-slugify');
  cpSync('examples/repos/js-slugify', dir, { recursive: true });
  git(tempDir(), 'init', '-q', '-b', 'main', dir);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'base');
  const init = await runCli(['init'], { cwd: dir });
  expect(init.status, init.stderr).toBe(0);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'crucible init');
  return dir;
}

/** A branch off main with the slugify fix and `extra` files: a pull request whose tests pass. */
function pullRequest(dir: string, name: string, extra: Record<string, string>): void {
  git(dir, 'checkout', '-qb', name, 'main');
  git(dir, 'apply', FIX);
  for (const [path, text] of Object.entries(extra)) writeFileSync(join(dir, path), text);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', name);
  git(dir, 'checkout', '-q', 'main');
}

async function ci(dir: string, head: string): Promise<{ status: number | null; result: CiJson; stderr: string }> {
  const r = await runCli(['ci', '--base', 'main', '--head', head, '--out', join(tempDir(), 'state'), '--json'], { cwd: dir });
  return { status: r.status, result: JSON.parse(r.stdout) as CiJson, stderr: r.stderr };
}

describe('secret detection is on by default', () => {
  it('crucible ci with only the files init wrote fails a pull request that adds an AWS-style key, and passes honest near-misses', async () => {
    const dir = await initialisedClone();
    pullRequest(dir, 'leak', { 'src/config.mjs': 'export const key = "AKIAQWERTYUIOPASDFGH";\n' });
    pullRequest(dir, 'honest', {
      'src/config.mjs': [
        '// Read from the environment, never committed: process.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY.',
        'export const keyId = process.env.AWS_ACCESS_KEY_ID;',
        "export const docsExample = 'AKIAIOSFODNN7EXAMPLE';",
        "export const placeholder = 'AKIAXXXXXXXXXXXXXXXX';",
        '',
      ].join('\n'),
    });

    const leak = await ci(dir, 'leak');
    expect(leak.status, leak.stderr).toBe(1);
    expect(leak.result).toMatchObject({ verdict: 'FAIL', cause: 'policy_violation' });
    expect(leak.result.checks.find((c) => c.id === 'secrets')).toMatchObject({ passed: false });
    expect(leak.result.checks.find((c) => c.id === 'secrets')?.message).toContain('aws-access-key-id in src/config.mjs:1');

    // The verdict as JUnit beside the project's own: a CI test tab shows the FAIL, not only the passing tests.
    expect(existsSync(join(leak.result.reportDir, 'junit.xml'))).toBe(true);
    const leakCases = parseJUnit(readFileSync(join(leak.result.reportDir, 'verdict.junit.xml'), 'utf8'));
    expect(leakCases.error).toBeUndefined();
    expect(leakCases.cases.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual(['crucible.ci::verdict', 'crucible.ci.checks::secrets']);

    const honest = await ci(dir, 'honest');
    expect(honest.status, honest.stderr).toBe(0);
    expect(honest.result.verdict).toBe('PASS');
    const honestCases = parseJUnit(readFileSync(join(honest.result.reportDir, 'verdict.junit.xml'), 'utf8')).cases;
    expect(honestCases.length).toBeGreaterThan(1);
    expect(honestCases.filter((c) => c.status !== 'passed')).toEqual([]);
    expect(honest.result.checks.find((c) => c.id === 'secrets')?.message).toMatch(/^no secrets in \d+ changed file/);
  });

  it('applies every detector preset when the config has no policy, and none when it says presets: []', () => {
    const tests = 'tests: { command: "npm test" }\n';
    expect(resolveCiSettings({ name: 'crucible.ci.yaml', text: tests }, {}).policy.secrets.presets).toEqual([...SECRET_PRESETS]);
    expect(resolveCiSettings(undefined, { testCommand: 'npm test' }).policy.secrets.presets).toEqual([...SECRET_PRESETS]);
    const off = `${tests}policy: { secrets: { presets: [] } }\n`;
    expect(resolveCiSettings({ name: 'crucible.ci.yaml', text: off }, {}).policy.secrets.presets).toEqual([]);
    const some = `${tests}policy: { secrets: { presets: [tokens] } }\n`;
    expect(resolveCiSettings({ name: 'crucible.ci.yaml', text: some }, {}).policy.secrets.presets).toEqual(['tokens']);
  });
});
