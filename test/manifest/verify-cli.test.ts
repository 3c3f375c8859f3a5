import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptManifest, RunManifest, VerifyReport } from '../../src/domain/manifest/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';

/** Put in the CLI's environment: no manifest may contain it (manifests hold no environment values). */
const FAKE_SECRET = 'sk-manifest-e2e-7f3a9c1d5e';

const sha = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

describe('execution manifests of a run of the bundled examples (oracle, bwrap)', () => {
  let out: string;
  let runId: string;
  let runDir: string;
  let attemptIds: string[];

  const verify = (...extra: string[]) => runCli(['manifest', 'verify', runId, '--out', out, ...extra]);
  /**
   * Flips one byte of a file (same length), runs verify, puts the byte back. The byte is a decimal
   * digit inside the first SHA-256 value when there is one, so a JSON file stays valid JSON (a
   * middle byte could land on a quote or brace, and verify would then rightly say "not valid JSON").
   */
  const withOneByteChanged = async (file: string): ReturnType<typeof verify> => {
    const original = readFileSync(file);
    const edited = Buffer.from(original);
    const at = digitInFirstHash(original.toString('latin1')) ?? Math.floor(edited.length / 2);
    edited[at] = (edited[at] as number) ^ 0x01;
    writeFileSync(file, edited);
    try {
      return await verify();
    } finally {
      writeFileSync(file, original);
    }
  };

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'crucible-manifest-'));
    const result = await runCli(
      [
        'run',
        'examples/tasks.yaml',
        '--task',
        'js-slugify',
        '--task',
        'py-median',
        '--agent',
        'oracle',
        '--sandbox',
        'bwrap',
        '--out',
        out,
        '--reporter',
        'markdown',
        '--json',
      ],
      { attempts: 2, env: { OPENAI_API_KEY: FAKE_SECRET, CRUCIBLE_E2E_SECRET_TOKEN: FAKE_SECRET } },
    );
    expect(result.status, result.stderr).toBe(0);
    runId = (JSON.parse(result.stdout) as { runId: string }).runId;
    runDir = join(out, 'runs', runId);
    attemptIds = readdirSync(join(runDir, 'attempts')).sort();
    expect(attemptIds).toHaveLength(2);
  }, attemptBudget(2));
  afterAll(async () => rmSync(out, { recursive: true, force: true }));

  it('writes a run manifest committing to each attempt manifest, and attempt manifests committing to each kept file', async () => {
    const run = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
    expect(run).toMatchObject({ schemaVersion: 1, kind: 'run', runId, sandbox: { kind: 'bwrap' }, agents: ['oracle'] });
    expect(run.taskSets).toEqual([{ path: join(process.cwd(), 'examples/tasks.yaml'), sha256: sha(readFileSync('examples/tasks.yaml')) }]);
    expect(run.files.map((f) => f.path)).toEqual(expect.arrayContaining(['checkpoint.jsonl', 'plan.json', 'summary.json']));
    for (const id of attemptIds) {
      const bytes = readFileSync(join(runDir, 'attempts', id, 'manifest.json'));
      expect(run.attempts).toContainEqual({ attemptId: id, manifest: sha(bytes) });
      const attempt = JSON.parse(bytes.toString('utf8')) as AttemptManifest;
      expect(attempt).toMatchObject({
        kind: 'attempt',
        attemptId: id,
        parentRun: runId,
        agent: { spec: 'oracle', name: 'oracle' },
        sandbox: { kind: 'bwrap' },
      });
      expect(attempt.host.node).toBe(process.version);
      expect(attempt.task.oracle?.kind).toBe('patch');
      expect(attempt.task.repo.baselineCommit).toMatch(/^[0-9a-f]{40}$/);
      const kept = attempt.artifacts.map((a) => a.path);
      expect(kept).toEqual(expect.arrayContaining(['attempt.json', 'diff.patch', 'tests.junit.xml', 'commands.jsonl']));
      expect(kept).not.toContain('manifest.json');
      const recorded = attempt.artifacts.find((a) => a.path === 'attempt.json');
      expect(recorded).toMatchObject({ sha256: sha(readFileSync(join(runDir, 'attempts', id, 'attempt.json'))) });
      // Canonical form: the file is its own canonical serialization.
      expect(bytes.toString('utf8')).toBe(`${JSON.stringify(sortedDeep(attempt), null, 2)}\n`);
    }
  });

  it('holds no environment value', async () => {
    const texts = [join(runDir, 'manifest.json'), ...attemptIds.map((id) => join(runDir, 'attempts', id, 'manifest.json'))].map((f) => readFileSync(f, 'utf8'));
    for (const text of texts) expect(text).not.toContain(FAKE_SECRET);
  });

  it('verifies: OK and exit 0, in text and JSON', async () => {
    const text = await verify();
    expect(text.status, text.stdout + text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^OK run /);
    const json = await verify('--json');
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout) as VerifyReport).toMatchObject({ ok: true, runId, attempts: 2, problems: [] });
  });

  it('fails naming the file when one byte of attempt.json, diff.patch or a JUnit copy changes', async () => {
    const [id] = attemptIds as [string];
    for (const name of ['attempt.json', 'diff.patch', 'tests.junit.xml']) {
      const result = await withOneByteChanged(join(runDir, 'attempts', id, name));
      expect(result.status, name).toBe(1);
      expect(result.stdout).toContain(`attempts/${id}/${name}: changed`);
    }
    const manifest = await withOneByteChanged(join(runDir, 'attempts', id, 'manifest.json'));
    expect(manifest.status).toBe(1);
    expect(manifest.stdout).toContain(`attempts/${id}/manifest.json: changed`);
    const manifestPath = join(runDir, 'attempts', id, 'manifest.json');
    const manifestBytes = readFileSync(manifestPath);
    writeFileSync(manifestPath, manifestBytes.subarray(0, manifestBytes.length - 3));
    try {
      const cut = await verify();
      expect(cut.status).toBe(1);
      expect(cut.stdout).toContain(`attempts/${id}/manifest.json: schema`);
    } finally {
      writeFileSync(manifestPath, manifestBytes);
    }
    const plan = await withOneByteChanged(join(runDir, 'plan.json'));
    expect(plan.status).toBe(1);
    expect(plan.stdout).toContain('plan.json: changed');
    // Every byte was put back.
    expect((await verify()).status).toBe(0);
  });

  it('exits 2 for a run that does not exist', async () => {
    const result = await runCli(['manifest', 'verify', 'no-such-run', '--out', out]);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('no-such-run');
  });

  it(
    'stays valid across a resume that reruns one attempt: the reused attempt keeps its manifest',
    async () => {
      const [kept, rerun] = attemptIds as [string, string];
      const checkpoint = readFileSync(join(runDir, 'checkpoint.jsonl'), 'utf8').split('\n').filter(Boolean);
      writeFileSync(join(runDir, 'checkpoint.jsonl'), `${checkpoint.filter((l) => l.includes(kept)).join('\n')}\n`);
      const keptManifest = readFileSync(join(runDir, 'attempts', kept, 'manifest.json'));
      const result = await runCli(['resume', runId, '--out', out, '--quiet'], { attempts: 1 });
      expect(result.status, result.stderr).toBe(0);
      expect(readFileSync(join(runDir, 'attempts', kept, 'manifest.json'))).toEqual(keptManifest);
      const run = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
      expect(run.attempts.map((a) => a.attemptId).sort()).toEqual([kept, rerun].sort());
      expect((await verify()).status).toBe(0);
    },
    attemptBudget(1),
  );
});

function sortedDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedDeep);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortedDeep((value as Record<string, unknown>)[k])]),
    );
  return value;
}

/** Offset of the first decimal digit inside the first `"sha256": "<hex>"` value, if any. */
function digitInFirstHash(text: string): number | undefined {
  const match = /"sha256":\s*"([0-9a-f]{64})"/.exec(text);
  if (!match) return undefined;
  const digit = match[1]?.search(/[0-9]/) ?? -1;
  return digit < 0 ? undefined : match.index + match[0].indexOf(match[1] ?? '') + digit;
}
