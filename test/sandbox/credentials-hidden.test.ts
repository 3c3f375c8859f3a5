import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planBinds } from '../../src/infra/sandbox/docker-mounts.js';
import { createExecutor } from '../../src/infra/sandbox/index.js';
import type { HostView } from '../../src/infra/sandbox/bwrap-allowlist.js';
import { makeSandboxDirs, type SandboxDirs } from './helpers.js';

/**
 * A fake user home with toolchains laid out as cargo, pip --user, nvm and pyenv lay them out, and an
 * /opt-style toolchain outside it, each with credentials beside (and inside) what runs it. The
 * sandbox runs the toolchains and reads none of the credentials.
 */
const TOOLS = {
  cargo: '.cargo/bin',
  pipUser: '.local/bin',
  nvm: '.nvm/versions/node/v20.11.0/bin',
  pyenv: '.pyenv/shims',
};

/** Relative to the fake home (or to the /opt toolchain for `opt:`). */
const CREDENTIALS = [
  // Beside the bin directories, in the top directories that used to be shown whole.
  '.cargo/credentials.toml',
  '.cargo/credentials',
  '.local/share/keyrings/login.keyring',
  '.pyenv/.netrc',
  // Inside what must be shown to run the toolchain: hidden by name.
  '.cargo/bin/.git-credentials',
  '.local/lib/.pypirc',
  '.nvm/versions/node/v20.11.0/etc/npmrc',
  '.nvm/versions/node/v20.11.0/.npmrc',
  '.nvm/versions/node/v20.11.0/.aws/credentials',
  '.nvm/versions/node/v20.11.0/.ssh/id_ed25519',
  '.nvm/versions/node/v20.11.0/.kube/config',
  '.nvm/versions/node/v20.11.0/.config/gh/hosts.yml',
  '.nvm/versions/node/v20.11.0/.config/gcloud/credentials.db',
  '.nvm/versions/node/v20.11.0/.azure/msal_token_cache.json',
  '.nvm/versions/node/v20.11.0/.docker/config.json',
  '.pyenv/versions/3.0.0/.netrc',
  '.pyenv/versions/3.0.0/.gnupg/secring.gpg',
  // The usual places in the home itself, never shown.
  '.npmrc',
  '.ssh/id_rsa',
  '.aws/credentials',
  '.git-credentials',
  'opt:etc/npmrc',
  'opt:.cargo/credentials',
];

describe('credentials beside toolchains are never in view (real bwrap, and the docker bind plan)', () => {
  let dirs: SandboxDirs;
  let home: string;
  let opt: string;
  const saved = { HOME: process.env.HOME, PATH: process.env.PATH };

  const at = (rel: string) => (rel.startsWith('opt:') ? join(opt, rel.slice(4)) : join(home, rel));

  beforeAll(async () => {
    dirs = await makeSandboxDirs();
    home = join(dirs.root, 'user-home');
    opt = join(dirs.root, 'opt', 'tool');
    const script = async (path: string, text: string) => {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, `#!/bin/sh\n${text}\n`);
      await chmod(path, 0o755);
    };
    await script(join(home, TOOLS.cargo, 'cargo'), 'echo cargo-ok');
    // A pip --user script imports from ~/.local/lib.
    await script(join(home, TOOLS.pipUser, 'tool'), `cat "${join(home, '.local/lib/python3/site-packages/tool.txt')}"`);
    await mkdir(join(home, '.local/lib/python3/site-packages'), { recursive: true });
    await writeFile(join(home, '.local/lib/python3/site-packages/tool.txt'), 'pip-user-ok\n');
    // nvm's node runs its own lib/ (npm lives there).
    await script(join(home, TOOLS.nvm, 'nodeish'), `cat "${join(home, '.nvm/versions/node/v20.11.0/lib/node_modules/npm/ok')}"`);
    await mkdir(join(home, '.nvm/versions/node/v20.11.0/lib/node_modules/npm'), { recursive: true });
    await writeFile(join(home, '.nvm/versions/node/v20.11.0/lib/node_modules/npm/ok'), 'nvm-ok\n');
    // pyenv's shim runs libexec/pyenv, which reads the version file and runs versions/<v>/bin.
    await script(join(home, '.pyenv/versions/3.0.0/bin/py'), 'echo pyenv-ok');
    await writeFile(join(home, '.pyenv/version'), '3.0.0\n');
    await script(join(home, '.pyenv/libexec/pyenv'), `exec "${home}/.pyenv/versions/$(cat "${home}/.pyenv/version")/bin/py"`);
    await script(join(home, TOOLS.pyenv, 'py'), `exec "${home}/.pyenv/libexec/pyenv"`);
    await script(join(opt, 'bin', 'opttool'), 'echo opt-ok');
    for (const rel of CREDENTIALS) {
      await mkdir(dirname(at(rel)), { recursive: true });
      await writeFile(at(rel), `SECRET ${rel}\n`);
    }
    process.env.HOME = home;
    process.env.PATH = [...Object.values(TOOLS).map((rel) => join(home, rel)), join(opt, 'bin'), saved.PATH].join(':');
  });
  afterAll(async () => {
    process.env.HOME = saved.HOME;
    process.env.PATH = saved.PATH;
    if (dirs) await rm(dirs.root, { recursive: true, force: true });
  });

  it('runs every toolchain, and no credential file or folder is readable inside', async () => {
    const executor = createExecutor('bwrap', { writable: [dirs.workspace], hidden: [], readOnly: [], home: dirs.home, tmp: dirs.tmp });
    const run = await executor.exec({ argv: ['sh', '-c', 'cargo; tool; nodeish; py; opttool'], cwd: dirs.workspace, timeoutMs: 30_000, network: 'none' });
    expect(run.stdout).toBe('cargo-ok\npip-user-ok\nnvm-ok\npyenv-ok\nopt-ok\n');
    const paths = CREDENTIALS.map(at);
    const read = await executor.exec({
      argv: ['sh', '-c', 'for p in "$@"; do cat "$p" 2>/dev/null; ls -A "$(dirname "$p")" 2>/dev/null | sed "s|^|$(dirname "$p")/|"; done', 'read', ...paths],
      cwd: dirs.workspace,
      timeoutMs: 30_000,
      network: 'none',
    });
    expect(read.stdout).not.toContain('SECRET');
    // Every file a listing still shows is empty (a cover), never the planted one.
    const search = await executor.exec({
      argv: ['sh', '-c', `grep -rl SECRET "${home}" "${opt}" 2>/dev/null; true`],
      cwd: dirs.workspace,
      timeoutMs: 30_000,
      network: 'none',
    });
    expect(search.stdout).toBe('');

    // One written after the sandbox first looked (`npm config set --global` at the host) is hidden too.
    const later = join(home, '.nvm/versions/node/v20.11.0/lib/.netrc');
    await writeFile(later, 'SECRET written later\n');
    const again = await executor.exec({ argv: ['cat', later], cwd: dirs.workspace, timeoutMs: 30_000, network: 'none' });
    expect(again.stdout).not.toContain('SECRET');
  });

  it('plans a cover for every credential inside a bound toolchain (docker)', async () => {
    const view: HostView = { path: process.env.PATH ?? '', execPath: process.execPath, userHome: home, sandboxHome: dirs.home };
    const filesDir = join(dirs.root, 'docker-files');
    await mkdir(filesDir, { recursive: true });
    const binds = await planBinds({
      layout: { writable: [dirs.workspace], hidden: [], readOnly: [], home: dirs.home, tmp: dirs.tmp },
      network: 'none',
      hostView: view,
      filesDir,
      user: { uid: 1000, gid: 1000 },
    });
    const shown = (path: string) => {
      const covering = binds.filter((b) => path === b.target || path.startsWith(`${b.target}/`)).sort((a, b) => b.target.length - a.target.length)[0];
      return covering !== undefined && !covering.source.startsWith(filesDir);
    };
    expect(CREDENTIALS.map(at).filter(shown)).toEqual([]);
    expect(binds.map((b) => b.target)).not.toContain(join(home, '.cargo'));
    expect(binds.map((b) => b.target)).toContain(join(home, TOOLS.cargo));
  });
});
