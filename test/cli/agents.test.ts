import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CassetteWriter, cassettePath } from '../../src/infra/gateway/cassette.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const FIXTURE = resolve('test/fixtures/agents/agents.yaml');

/**
 * A cassette directory holding, for each key, the recording of a session without model requests:
 * what the fixture agent (it only prints its arguments) leaves, and what --replay checks for before a run.
 */
function emptyRecordings(...keys: string[]): string {
  const dir = tempDir();
  for (const key of keys) new CassetteWriter(cassettePath(dir, key), key, () => []);
  return dir;
}

/** An agents file whose one profile installs a tiny local package (an `npm pack` tarball). */
function tarballAgents(): string {
  const pkg = join(tempDir(), 'tiny-agent');
  mkdirSync(pkg);
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'tiny-agent', version: '1.0.0', bin: { 'tiny-agent': 'cli.js' } }));
  writeFileSync(join(pkg, 'cli.js'), "#!/usr/bin/env node\nconsole.log('tiny');\n");
  chmodSync(join(pkg, 'cli.js'), 0o755);
  const dir = tempDir();
  execFileSync('npm', ['pack', '--pack-destination', dir, '--loglevel=error'], { cwd: pkg, stdio: 'ignore' });
  const file = join(dir, 'agents.yaml');
  writeFileSync(
    file,
    `agents:\n  - name: tiny\n    package: ./tiny-agent-1.0.0.tgz\n    command: [tiny-agent, '{task_prompt}']\n    protocol: { kind: anthropic, api_key_env: [ANTHROPIC_API_KEY] }\n`,
  );
  return file;
}

describe('crucible agents', () => {
  it('list shows each profile with its program, model, protocol, install state and source', async () => {
    const out = await runCli(['agents', 'list', '--agents', FIXTURE, '--out', tempDir()]);
    expect(out.status).toBe(0);
    const header = out.stdout.split('\n')[0] ?? '';
    expect(header).toMatch(/^agent +package \/ program +default model +protocol +installed +source$/);
    expect(out.stdout).toMatch(
      /\nfixture-agent +\S*test\/fixtures\/agents\/fake-agent\.sh +fixture-model-1 +openai-chat +host +test\/fixtures\/agents\/agents\.yaml\n/,
    );
    expect(out.stdout).toContain('later sources override earlier ones by name');
  });

  it('install puts a package in the agent cache; list then shows its version; a second install reuses it', async () => {
    const agents = tarballAgents();
    const cache = join(tempDir(), 'cache');
    const env = { CRUCIBLE_AGENT_CACHE: cache };
    const before = await runCli(['agents', 'list', '--agents', agents, '--json'], { env });
    expect(
      (JSON.parse(before.stdout) as { agents: Array<{ name: string; installed?: string }> }).agents.find((a) => a.name === 'tiny')?.installed,
    ).toBeUndefined();
    const first = await runCli(['agents', 'install', 'tiny', '--agents', agents], { env });
    expect(first.status).toBe(0);
    expect(first.stderr).toMatch(/installing tiny \(.*tiny-agent-1\.0\.0\.tgz\) with npm into .*, once: later runs reuse it…/);
    expect(first.stdout).toMatch(/^ok tiny: .*tiny-agent-1\.0\.0\.tgz installed \(.*\/cache\/tiny-[0-9a-f]{12}\/node_modules\/tiny-agent\/cli\.js\)\n$/);
    const second = await runCli(['agents', 'install', 'tiny', '--agents', agents], { env });
    expect(second.stdout).toContain('already installed');
    expect(second.stderr).not.toContain('installing');
    const after = await runCli(['agents', 'list', '--agents', agents], { env });
    expect(after.stdout).toMatch(/\ntiny +\S+tiny-agent-1\.0\.0\.tgz +- +anthropic +1\.0\.0 /);
  });

  it('install without a name, or with an unknown one, is bad input', async () => {
    expect((await runCli(['agents', 'install', '--agents', FIXTURE])).status).toBe(2);
    const unknown = await runCli(['agents', 'install', 'nope', '--agents', FIXTURE]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/nope: no such agent profile \(fix: use one of .*fixture-agent/);
  });

  it('check with the API key missing stops before any attempt, naming the variable (exit 2)', async () => {
    const out = await runCli(['agents', 'check', 'fixture-agent', '--agents', FIXTURE, '--out', tempDir()], { env: { OPENAI_API_KEY: undefined } });
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(
      /--agent fixture-agent: OPENAI_API_KEY is not set \(fix: export OPENAI_API_KEY=<your key>, or replay a cassette with --replay DIR\)/,
    );
  });

  it('check of something that is not a profile is bad input', async () => {
    const out = await runCli(['agents', 'check', 'oracle', '--agents', FIXTURE]);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/agents check oracle: not an agent profile \(fix: use one of .*fixture-agent/);
  });

  it('check runs the bundled task and reports a problem line and the verdict when the agent does not pass', async () => {
    // The fixture agent only prints its arguments: whatever the runner makes of it, it edits nothing.
    const cassettes = emptyRecordings('js-slugify/fixture-agent/0');
    const out = await runCli(['agents', 'check', 'fixture-agent', '--agents', FIXTURE, '--replay', cassettes, '--out', tempDir(), '--sandbox', 'local'], {
      attempts: 1,
      env: { OPENAI_API_KEY: undefined },
    });
    expect(out.status).toBe(1);
    expect(out.stdout).toMatch(/^problem /m);
    expect(out.stdout).toMatch(/^verdict (FAIL|ERROR) /m);
    expect(out.stdout).toMatch(/evidence: crucible show js-slugify\.fixture-agent/);
  });

  it('run and validate read --agents FILE: a bad profile is one line with file, field and fix', async () => {
    const bad = join(tempDir(), 'agents.yaml');
    writeFileSync(bad, "agents:\n  - name: x\n    command_path: /bin/true\n    command: [x, '--prompt={task_prompt}']\n    protocol: { kind: anthropic }\n");
    for (const argv of [
      ['run', 'examples/tasks.yaml', '--agent', 'x', '--agents', bad],
      ['validate', 'examples/tasks.yaml', '--agents', bad],
    ]) {
      const out = await runCli(argv);
      expect(out.status).toBe(2);
      expect(out.stderr.trim()).toBe(
        `error ${bad}:4:18: agents[0].command[1]: {task_prompt} is inside "--prompt={task_prompt}"; a placeholder must be a whole item (fix: split it into two items: "--prompt", "{task_prompt}")`,
      );
    }
  });

  it('run names profiles among the choices for an unknown agent', async () => {
    const out = await runCli(['run', 'examples/tasks.yaml', '--agent', 'fixture-agnet', '--agents', FIXTURE]);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/--agent fixture-agnet: unknown agent \(fix: did you mean fixture-agent\? profiles: .*fixture-agent/);
  });

  it('a run records the profiles it used in plan.json, and resume runs with those', async () => {
    const out = tempDir();
    const run = await runCli(
      [
        'run',
        'examples/tasks.yaml',
        '--agents',
        FIXTURE,
        '--agent',
        'fixture-agent:other-model',
        '--task',
        'js-slugify',
        '--replay',
        emptyRecordings('js-slugify/fixture-agent:other-model/0'),
        '--sandbox',
        'local',
        '--out',
        out,
        '-q',
        '--reporter',
        'json',
      ],
      { attempts: 1 },
    );
    expect(run.stderr).not.toMatch(/^error /m);
    const [runId] = readdirSync(join(out, 'runs'));
    const plan = JSON.parse(readFileSync(join(out, 'runs', runId as string, 'plan.json'), 'utf8')) as { profiles?: Array<{ name: string; model?: string }> };
    expect(plan.profiles?.map((p) => [p.name, p.model])).toEqual([['fixture-agent', 'fixture-model-1']]);
    // No --agents here: the profile comes from plan.json.
    const resumed = await runCli(['resume', runId as string, '--out', out, '-q']);
    expect(resumed.stderr).not.toMatch(/unknown agent/);
    expect(resumed.stdout).toContain('js-slugify');
  });
});
