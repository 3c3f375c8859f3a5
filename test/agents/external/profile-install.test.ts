import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentCacheDir, installDirOf, installedVersion, INSTALL_MARKER, profileHash, resolveProgram } from '../../../src/domain/agents/external/install.js';
import type { AgentProfile } from '../../../src/domain/agents/external/profile.js';
import { createExternalAgent } from '../../../src/domain/agents/external/agent.js';
import { CLI } from '../../helpers/cli.js';
import { useTempDirs } from '../../helpers/tmp.js';

const tempDir = useTempDirs();

/** A tiny npm package with one bin, packed with `npm pack` into a tarball: no registry needed. */
function tinyPackage(version = '1.0.0'): string {
  const dir = join(tempDir(), 'tiny-agent');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'tiny-agent', version, bin: { 'tiny-agent': 'cli.js' } }));
  writeFileSync(join(dir, 'cli.js'), "#!/usr/bin/env node\nconsole.log('tiny-agent ' + process.argv.slice(2).join(' '));\n");
  chmodSync(join(dir, 'cli.js'), 0o755);
  const out = tempDir();
  execFileSync('npm', ['pack', '--pack-destination', out, '--loglevel=error'], { cwd: dir, stdio: 'ignore' });
  return join(out, `tiny-agent-${version}.tgz`);
}

function profile(fields: Partial<AgentProfile>): AgentProfile {
  return {
    name: 'tiny',
    command: ['tiny-agent', '{task_prompt}'],
    stdin: 'none',
    env: [],
    setEnv: {},
    homeFiles: {},
    protocol: { kind: 'anthropic', baseUrlEnv: [], apiKeyEnv: [] },
    output: 'text',
    source: 'test',
    ...fields,
  };
}

describe('installing a package agent', () => {
  it('installs into <cache>/<name>-<hash>, resolves the bin to its real file, and reuses the install', async () => {
    const cacheDir = join(tempDir(), 'cache');
    const p = profile({ package: tinyPackage() });
    const progress: string[] = [];
    const first = await resolveProgram(p, { cacheDir, install: true, onProgress: (line) => progress.push(line) });
    const dir = installDirOf(p, cacheDir);
    expect(dir).toMatch(/\/cache\/tiny-[0-9a-f]{12}$/);
    expect(first).toEqual({ argv0: join(dir, 'node_modules', 'tiny-agent', 'cli.js'), readOnly: [dir] });
    expect(progress).toEqual([
      `installing tiny (${p.package}) with npm into ${cacheDir}, once: later runs reuse it…`,
      "tiny: downloaded; running tiny-agent's own install script (npm rebuild)…",
      'installed tiny 1.0.0',
    ]);
    expect(execFileSync(first.argv0, ['hello'], { encoding: 'utf8' })).toBe('tiny-agent hello\n');
    expect(installedVersion(p, cacheDir)).toBe('1.0.0');

    // The second call finds the install: no progress, the marker untouched, nothing left beside it.
    const marker = statSync(join(dir, INSTALL_MARKER)).mtimeMs;
    const second = await resolveProgram(p, { cacheDir, install: true, onProgress: (line) => progress.push(line) });
    expect(second).toEqual(first);
    expect(progress).toHaveLength(3);
    expect(statSync(join(dir, INSTALL_MARKER)).mtimeMs).toBe(marker);
    expect(readdirSync(cacheDir)).toEqual([dir.split('/').pop()]);
  });

  it('a run preparing the agent tells each install step as it starts, so a minute of npm is never silent', async () => {
    const stateDir = tempDir();
    const agent = createExternalAgent(profile({ package: tinyPackage(), model: 'm' }), undefined, 'tiny');
    const progress: string[] = [];
    const saved = process.env.CRUCIBLE_AGENT_CACHE;
    delete process.env.CRUCIBLE_AGENT_CACHE;
    try {
      await agent.prepare?.({ stateDir, sandbox: 'bwrap', onProgress: (line) => progress.push(line) });
    } finally {
      if (saved !== undefined) process.env.CRUCIBLE_AGENT_CACHE = saved;
    }
    expect(progress[0]).toMatch(/^installing tiny \(.*tiny-agent-1\.0\.0\.tgz\) with npm into .*\/agents, once/);
    expect(progress.at(-1)).toBe('installed tiny 1.0.0');
  });

  it('two installs at once run npm once: the second waits for the lock and finds the install', async () => {
    const cacheDir = join(tempDir(), 'cache');
    const p = profile({ package: tinyPackage() });
    const progress: string[] = [];
    const options = { cacheDir, install: true, onProgress: (line: string) => progress.push(line) };
    const [a, b] = await Promise.all([resolveProgram(p, options), resolveProgram(p, options)]);
    expect(a).toEqual(b);
    expect(progress).toHaveLength(3);
  });

  it('a lock left by a process that died is taken over', async () => {
    const cacheDir = join(tempDir(), 'cache');
    mkdirSync(cacheDir);
    const p = profile({ package: tinyPackage() });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(`${installDirOf(p, cacheDir)}.lock`, `${dead}\n`);
    const program = await resolveProgram(p, { cacheDir, install: true });
    expect(existsSync(program.argv0)).toBe(true);
    expect(existsSync(`${installDirOf(p, cacheDir)}.lock`)).toBe(false);
  });

  it('without install, a missing package names the command that installs it', async () => {
    const p = profile({ name: 'tiny', package: 'tiny-agent@1.0.0' });
    await expect(resolveProgram(p, { cacheDir: tempDir(), install: false })).rejects.toThrow(
      /tiny \(tiny-agent@1\.0\.0\) is not installed .*fix: run `crucible agents install tiny`/,
    );
  });

  it('a command[0] the package does not have lists the bins it has', async () => {
    const p = profile({ package: tinyPackage(), command: ['tiny', '{task_prompt}'] });
    await expect(resolveProgram(p, { cacheDir: tempDir(), install: true })).rejects.toThrow(
      /has no program "tiny" \(fix: set command\[0\] to one of: tiny-agent\)/,
    );
  });

  it("npm's failure is an input error with npm's own words", async () => {
    const p = profile({ package: join(tempDir(), 'missing-1.0.0.tgz') });
    await expect(resolveProgram(p, { cacheDir: tempDir(), install: true })).rejects.toThrow(/installing tiny .*npm install exited \d+: .*ENOENT/);
  });
});

describe('an install cut short by a signal', () => {
  const pause = () => new Promise((resolve) => setTimeout(resolve, 20));
  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('ends the CLI with 130 and takes npm with it; the next install clears what the cut one left', async () => {
    const dir = tempDir();
    const tarball = tinyPackage();
    const agents = join(dir, 'agents.yaml');
    const fields = ['name: tiny', `package: ${JSON.stringify(tarball)}`, "command: [tiny-agent, '{task_prompt}']", 'model: m'];
    writeFileSync(
      agents,
      `agents:\n  - ${fields.join('\n    ')}\n    protocol: { kind: anthropic, base_url_env: [ANTHROPIC_BASE_URL], api_key_env: [ANTHROPIC_API_KEY] }\n    output: text\n`,
    );
    // An npm that says where it is, then takes its time, as a cold download does.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const npmPid = join(dir, 'npm.pid');
    writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho $$ > ${npmPid}.part && mv ${npmPid}.part ${npmPid}\nexec sleep 600\n`);
    chmodSync(join(bin, 'npm'), 0o755);
    const cacheDir = join(dir, 'cache');
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, CRUCIBLE_AGENT_CACHE: cacheDir, NO_COLOR: '1' };
    const cli = spawn(process.execPath, [CLI, 'agents', 'install', 'tiny', '--agents', agents], { env, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => cli.once('exit', resolve));
    while (!existsSync(npmPid)) await pause();
    const npm = Number(readFileSync(npmPid, 'utf8'));
    cli.kill('SIGTERM');
    expect(await exited).toBe(130);
    // No deadline here: the test's own timeout bounds it, and a leaked npm never ends.
    while (alive(npm)) await pause();

    const p = profile({ package: tarball });
    expect(readdirSync(cacheDir).filter((name) => name.includes('.tmp-'))).toHaveLength(1);
    const program = await resolveProgram(p, { cacheDir, install: true });
    expect(existsSync(program.argv0)).toBe(true);
    expect(readdirSync(cacheDir)).toEqual([installDirOf(p, cacheDir).split('/').pop()]);
  });
});

describe('a command_path agent', () => {
  it('is used where it is, its directory shown read-only; a missing or non-executable one is an input error', async () => {
    const dir = tempDir();
    const program = join(dir, 'agent.sh');
    writeFileSync(program, '#!/bin/sh\necho hi\n');
    await expect(resolveProgram(profile({ commandPath: program }), { cacheDir: tempDir(), install: false })).rejects.toThrow(
      /is not executable \(fix: chmod \+x/,
    );
    chmodSync(program, 0o755);
    expect(await resolveProgram(profile({ commandPath: program }), { cacheDir: tempDir(), install: false })).toEqual({ argv0: program, readOnly: [dir] });
    expect(await resolveProgram(profile({ commandPath: '/bin/sh' }), { cacheDir: tempDir(), install: false })).toMatchObject({ readOnly: [] });
    await expect(resolveProgram(profile({ commandPath: join(dir, 'nope') }), { cacheDir: tempDir(), install: false })).rejects.toThrow(/does not exist/);
  });
});

describe('cache directory and profile hash', () => {
  it('CRUCIBLE_AGENT_CACHE wins over <state dir>/agents', () => {
    expect(agentCacheDir('/s', {})).toBe('/s/agents');
    expect(agentCacheDir('/s', { CRUCIBLE_AGENT_CACHE: '/c' })).toBe('/c');
  });

  it('hashes the content, not where the profile was read from', () => {
    const a = profile({ package: 'x@1.0.0', source: 'builtin' });
    expect(profileHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(profileHash({ ...a, source: '/elsewhere.yaml' })).toBe(profileHash(a));
    expect(profileHash({ ...a, setEnv: { A: '1' } })).not.toBe(profileHash(a));
  });
});
