import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { addSignature, createPack, generateKey, importPack, loadTrustPolicy, PackVerificationError, verifyPack } from '../../src/features/pack/index.js';
import { sha256 } from '../../src/features/pack/manifest.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const EXAMPLES = resolve('examples');

/** Two of the bundled examples, copied with the repos and oracles they name into `dir`. */
function examplesSubset(dir: string, ids = ['js-slugify', 'js-sortby']): string {
  const set = parse(readFileSync(join(EXAMPLES, 'tasks.yaml'), 'utf8')) as {
    defaults: unknown;
    tasks: Array<{ id: string; repo: { path: string }; oracle: { patch: string } }>;
  };
  const tasks = set.tasks.filter((t) => ids.includes(t.id));
  for (const t of tasks) {
    cpSync(join(EXAMPLES, t.repo.path), join(dir, t.repo.path), { recursive: true });
    cpSync(join(EXAMPLES, t.oracle.patch), join(dir, t.oracle.patch));
  }
  writeFileSync(join(dir, 'tasks.yaml'), stringify({ defaults: set.defaults, tasks }));
  return join(dir, 'tasks.yaml');
}

function gitRepo(dir: string): { first: string } {
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', dir, ...args], {
      encoding: 'utf8',
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
    }).trim();
  mkdirSync(join(dir, 'bin'), { recursive: true });
  execFileSync('git', ['init', '-q', dir]);
  writeFileSync(join(dir, 'a.txt'), 'first\n');
  writeFileSync(join(dir, 'bin', 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  git('add', '-A');
  git('commit', '-qm', 'one');
  const first = git('rev-parse', 'HEAD');
  writeFileSync(join(dir, 'a.txt'), 'second\n');
  git('commit', '-qam', 'two');
  return { first };
}

describe('pack create', () => {
  it('gives byte-identical zips for identical input, with repos under repos/ and paths rewritten', async () => {
    const src = tempDir();
    const taskset = examplesSubset(src);
    const out = tempDir();
    const a = await createPack(taskset, join(out, 'a.zip'));
    const b = await createPack(taskset, join(out, 'b.zip'));
    expect(readFileSync(join(out, 'a.zip')).equals(readFileSync(join(out, 'b.zip')))).toBe(true);
    expect(a.rootDigest).toBe(b.rootDigest);
    // A copy of the same files elsewhere, made later, is the same input: the same bytes.
    const elsewhere = tempDir();
    cpSync(src, elsewhere, { recursive: true });
    await createPack(join(elsewhere, 'tasks.yaml'), join(out, 'c.zip'));
    expect(sha256(readFileSync(join(out, 'c.zip')))).toBe(sha256(readFileSync(join(out, 'a.zip'))));

    const listing = execFileSync('unzip', ['-Z1', join(out, 'a.zip')], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(listing).toEqual([...listing].sort());
    expect(listing).toContain('repos/js-slugify/src/slugify.mjs');
    expect(listing).toContain('files/oracles/js-slugify.patch');
    const verbose = execFileSync('unzip', ['-Z', join(out, 'a.zip')], { encoding: 'utf8' });
    expect(verbose).toMatch(/80-Jan-01 00:00 tasks\.yaml/);
    const imported = tempDir();
    const result = await runCli(['pack', 'import', join(out, 'a.zip'), join(imported, 'x')]);
    expect(result.status).toBe(0);
    const tasks = parse(readFileSync(join(imported, 'x', 'tasks.yaml'), 'utf8')) as { tasks: Array<{ repo: unknown; oracle: unknown }> };
    expect(tasks.tasks[0]?.repo).toEqual({ path: 'repos/js-slugify' });
    expect(tasks.tasks[0]?.oracle).toEqual({ patch: 'files/oracles/js-slugify.patch' });
  });

  it("packs a local git repo as its files at the task's commit, keeping the executable bit", async () => {
    const src = tempDir();
    const repo = join(src, 'upstream');
    const { first } = gitRepo(repo);
    writeFileSync(
      join(src, 'tasks.yaml'),
      `tasks:\n  - id: g\n    repo: { git: upstream, commit: "${first.slice(0, 8)}" }\n    instruction: x\n    tests: { command: "true", fail_to_pass: [a] }\n`,
    );
    const out = tempDir();
    await createPack(join(src, 'tasks.yaml'), join(out, 'g.zip'));
    const result = await runCli(['pack', 'import', join(out, 'g.zip'), join(out, 'g')]);
    expect(result.status).toBe(0);
    const dir = join(out, 'g', 'repos', `upstream-${first.slice(0, 12)}`);
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('first\n');
    expect(statSync(join(dir, 'bin', 'run.sh')).mode & 0o777).toBe(0o755);
    expect(statSync(join(dir, 'a.txt')).mode & 0o111).toBe(0);
    expect(existsSync(join(dir, '.git'))).toBe(false);
  });

  it('packs a Dockerfile with its whole build context, and the imported task set loads', async () => {
    const src = tempDir();
    const taskset = examplesSubset(src, ['js-slugify']);
    mkdirSync(join(src, 'env'));
    writeFileSync(join(src, 'env', 'Dockerfile'), 'FROM scratch\nCOPY req.txt /\n');
    writeFileSync(join(src, 'env', 'req.txt'), 'x\n');
    const set = parse(readFileSync(taskset, 'utf8')) as { tasks: Array<Record<string, unknown>> };
    (set.tasks[0] as Record<string, unknown>).environment = { dockerfile: 'env/Dockerfile' };
    writeFileSync(taskset, stringify(set));
    const out = tempDir();
    await createPack(taskset, join(out, 'p.zip'));
    const imported = await importPack(join(out, 'p.zip'), join(out, 'x'));
    expect(readFileSync(join(imported.dir, 'files/env/req.txt'), 'utf8')).toBe('x\n');
    const loaded = loadTaskSet(imported.tasksetPath);
    expect(loaded.tasks[0]?.environment).toMatchObject({ dockerfile: join(imported.dir, 'files/env/Dockerfile'), context: join(imported.dir, 'files/env') });
  });

  it('refuses repos that cannot be packed, naming the field and the fix', async () => {
    const src = tempDir();
    const tests = 'tests: { command: "true", fail_to_pass: [a] }';
    writeFileSync(join(src, 'npm.yaml'), `tasks:\n  - id: n\n    repo: { npm: qs@6.12.2 }\n    instruction: x\n    ${tests}\n`);
    writeFileSync(
      join(src, 'remote.yaml'),
      `tasks:\n  - id: r\n    repo: { git: "https://example.com/x.git", commit: abcdef }\n    instruction: x\n    ${tests}\n`,
    );
    const npm = await runCli(['pack', 'create', join(src, 'npm.yaml'), '-o', join(src, 'n.zip')]);
    expect(npm.stderr).toMatch(/tasks\[0\]\.repo\.npm: fetched from the network when the task runs, so it cannot be packed \(fix:/);
    expect(npm.status).toBe(2);
    const remote = await runCli(['pack', 'create', join(src, 'remote.yaml'), '-o', join(src, 'r.zip')]);
    expect(remote.stderr).toMatch(/tasks\[0\]\.repo\.git: https:\/\/example\.com\/x\.git is a remote repository.*\(fix: clone it/);
    expect(remote.status).toBe(2);
    expect(readdirSync(src).sort()).toEqual(['npm.yaml', 'remote.yaml']);
  });
});

describe('signatures, trust and the index', () => {
  async function keys(dir: string): Promise<{ id: string; key: string; pub: string }> {
    const result = await runCli(['keys', 'generate', '-o', dir]);
    expect(result.status).toBe(0);
    const id = /key id ([0-9a-f]{32})/.exec(result.stdout)?.[1] as string;
    expect(result.stdout).not.toMatch(/PRIVATE KEY/);
    return { id, key: join(dir, `${id}.key.pem`), pub: join(dir, `${id}.pub.pem`) };
  }
  function trustFile(dir: string, ks: Array<{ id: string; pub: string }>, extra = ''): string {
    const file = join(dir, 'trust.yaml');
    writeFileSync(file, stringify({ trusted_keys: ks.map((k) => ({ id: k.id, public_key: readFileSync(k.pub, 'utf8') })), required: 1 }) + extra);
    return file;
  }

  it('keys generate writes a 0600 private key; a signed pack verifies under a policy that trusts it; altered or untrusted ones do not, and nothing is written', async () => {
    const work = tempDir();
    const trusted = await keys(join(work, 'keys'));
    const stranger = generateKey();
    expect(statSync(trusted.key).mode & 0o777).toBe(0o600);
    const trust = trustFile(work, [trusted]);
    const src = tempDir();
    const taskset = examplesSubset(src, ['js-slugify']);
    const zip = join(work, 'p.zip');
    await createPack(taskset, zip);

    await expect(verifyPack(zip, { trust: loadTrustPolicy(trust) })).rejects.toThrow(
      /0 valid trusted signature\(s\), the trust policy requires 1 \(no signatures found\)/,
    );

    addSignature(`${zip}.sig.json`, (await verifyPack(zip)).rootDigest, stranger.privatePem, 'stranger.key.pem');
    const strangerOnly = await runCli(['pack', 'import', zip, join(work, 'out'), '--trust', trust]);
    expect(strangerOnly.stderr).toMatch(/0 valid trusted signature\(s\), the trust policy requires 1 \(1 signature\(s\) by untrusted keys\)/);
    expect(strangerOnly.status).toBe(1);

    const signed = await runCli(['pack', 'sign', zip, '--key', trusted.key]);
    expect(signed.stdout).toContain(`with key ${trusted.id}`);
    const ok = await runCli(['pack', 'verify', zip, '--trust', trust]);
    expect(ok.stdout).toContain(`signed by ${trusted.id}`);
    expect(ok.status).toBe(0);

    // Alter one byte of a repo file and repack: same signature file, different root digest.
    writeFileSync(join(src, 'repos/js-slugify/src/slugify.mjs'), `${readFileSync(join(src, 'repos/js-slugify/src/slugify.mjs'), 'utf8')}//\n`);
    const altered = join(work, 'altered.zip');
    await createPack(taskset, altered);
    cpSync(`${zip}.sig.json`, `${altered}.sig.json`);
    const before = readdirSync(work).sort();
    const rejected = await runCli(['pack', 'import', altered, join(work, 'out'), '--trust', trust]);
    expect(rejected.stderr).toMatch(/1 trusted signature\(s\) do not match this pack \(altered after signing\?\)/);
    expect(rejected.status).toBe(1);
    expect(readdirSync(work).sort()).toEqual(before);
  });

  it('a trust policy is parsed strictly: unknown fields and wrong ids name the file, the field and the fix', async () => {
    const work = tempDir();
    const k = await keys(work);
    const zip = join(work, 'none.zip');
    const unknown = trustFile(work, [k], 'allow_unsigned: true\n');
    const r1 = await runCli(['pack', 'verify', zip, '--trust', unknown]);
    expect(r1.stderr).toMatch(/trust\.yaml:\d+:1: allow_unsigned: unknown field "allow_unsigned" \(fix: allowed fields: trusted_keys, required\)/);
    expect(r1.status).toBe(2);
    writeFileSync(unknown, readFileSync(unknown, 'utf8').replace('allow_unsigned: true\n', '').replace(k.id, 'f'.repeat(32)));
    const r2 = await runCli(['pack', 'verify', zip, '--trust', unknown]);
    expect(r2.stderr).toMatch(/trusted_keys\[0\]\.id: f{32} is not this public key's id/);
    expect(r2.status).toBe(2);
  });

  it(
    'a pack signed by a trusted key installs from an index and runs with the oracle to all PASS',
    async () => {
      const work = tempDir();
      const k = generateKey();
      writeFileSync(join(work, 'k.pub.pem'), k.publicPem);
      const trust = trustFile(work, [{ id: k.id, pub: join(work, 'k.pub.pem') }]);
      const registry = join(work, 'registry');
      mkdirSync(registry);
      const zip = join(registry, 'mini-1.0.0.crucible.zip');
      const { rootDigest } = await createPack(examplesSubset(tempDir()), zip);
      addSignature(`${zip}.sig.json`, rootDigest, k.privatePem, 'k.key.pem');
      const digest = sha256(readFileSync(zip));
      const index = join(registry, 'index.yaml');
      const entry = { name: 'mini', version: '1.0.0', path: 'mini-1.0.0.crucible.zip', sha256: digest, signatures: ['mini-1.0.0.crucible.zip.sig.json'] };
      writeFileSync(index, stringify({ packs: [{ ...entry, version: '0.9.0', sha256: '0'.repeat(64) }, entry] }));

      // The 0.9.0 entry's digest is not the archive's: rejected before anything is written.
      const wrong = await runCli(['pack', 'install', 'mini@0.9.0', '--index', index, '--trust', trust, '-o', join(work, 'old')], { cwd: work });
      expect(wrong.stderr).toMatch(/archive SHA-256 is [0-9a-f]{64}, the index says 0{64}/);
      expect(wrong.status).toBe(1);
      expect(existsSync(join(work, 'old'))).toBe(false);

      const installed = await runCli(['pack', 'install', 'mini@1.0.0', '--index', index, '--trust', trust, '-o', join(work, 'mini')], { cwd: work });
      expect(installed.stderr).toContain(`signed by ${k.id}`);
      expect(installed.status).toBe(0);
      const tasksetPath = installed.stdout.trim();
      expect(tasksetPath).toBe(join(work, 'mini', 'tasks.yaml'));
      expect((await verifyPack(zip)).archiveDigest).toBe(digest);

      const run = await runCli(['run', tasksetPath, '--agent', 'oracle', '--json', '-q', '--sandbox', 'bwrap'], { cwd: work, attempts: 2 });
      expect(run.status).toBe(0);
      const summary = JSON.parse(run.stdout) as { planned: number; counts: Record<string, number> };
      expect(summary.planned).toBe(2);
      expect(summary.counts.PASS).toBe(2);
    },
    attemptBudget(2),
  );

  it('a policy of key ids alone accepts a signature only with the key whose id it is', async () => {
    const work = tempDir();
    const zip = join(work, 'p.zip');
    const { rootDigest } = await createPack(examplesSubset(tempDir(), ['js-slugify']), zip);
    const trusted = generateKey();
    const forger = generateKey();
    const sigFile = `${zip}.sig.json`;
    addSignature(sigFile, rootDigest, trusted.privatePem, 'trusted.key.pem');
    const policy = { trustedKeys: [trusted.id], required: 1 };
    expect((await verifyPack(zip, { trust: policy })).signedBy).toEqual([trusted.id]);

    // A forger signs with their own key but claims the trusted id: the embedded key's id gives it away.
    const forged = join(work, 'forged.sig.json');
    addSignature(forged, rootDigest, forger.privatePem, 'forger.key.pem');
    const file = JSON.parse(readFileSync(forged, 'utf8')) as { signatures: Array<{ key_id: string }> };
    (file.signatures[0] as { key_id: string }).key_id = trusted.id;
    writeFileSync(forged, JSON.stringify(file));
    await expect(verifyPack(zip, { trust: policy, signatureFiles: [forged] })).rejects.toThrow(PackVerificationError);
  });
});

describe('symlinks', () => {
  it('packs a relative symlink inside a repo and imports it as a symlink; refuses one that leads out', async () => {
    const src = tempDir();
    const taskset = examplesSubset(src, ['js-slugify']);
    symlinkSync('../package.json', join(src, 'repos/js-slugify/src/pkg.json'));
    const out = tempDir();
    await createPack(taskset, join(out, 'p.zip'));
    const imported = await importPack(join(out, 'p.zip'), join(out, 'x'));
    const link = join(imported.dir, 'repos/js-slugify/src/pkg.json');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('../package.json');

    symlinkSync('/etc/passwd', join(src, 'repos/js-slugify/passwd'));
    await expect(createPack(taskset, join(out, 'q.zip'))).rejects.toThrow(/repos\/js-slugify\/passwd: symlink to \/etc\/passwd leads outside what is packed/);
    expect(existsSync(join(out, 'q.zip'))).toBe(false);
  });
});
