/**
 * End to end under the docker sandbox, on the real engine: the example Dockerfile task builds once
 * and is cached, passes with oracle and fails with nop, records and shows its provenance, validates;
 * held-out tests run where nothing the agent left running can reach; compare tells two images of
 * one tag apart. Docker is what is tested, not the CLI's process: the commands run in-process
 * (runCli), and the tests that use the example as it ships share one copy and so its one image.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../src/domain/agents/index.js';
import { CONTAINER_OWNER_LABEL, detectDocker, dockerClient, ownerLabelValue } from '../../src/infra/docker/index.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { runAttempt } from '../../src/engine/attempt.js';
import { HOST_VIEW_LABEL, resolveEnvironments, type ResolvedEnvironment } from '../../src/domain/environment/index.js';
import type { AttemptResult, Task } from '../../src/core/types/index.js';
import { attemptBudget } from '../helpers/budget.js';
import { runCli } from '../helpers/cli.js';
import { useTempDirs } from '../helpers/tmp.js';

const tempDir = useTempDirs();
const client = dockerClient();
const made = new Set<string>();
/** The example as it ships, for every test that does not edit it: one copy, so one image built. */
let shared = '';

beforeAll(async () => {
  const docker = await detectDocker(client);
  if (!docker.ok) throw new Error(`these tests need a Docker engine: ${docker.reason} (fix: ${docker.fix})`);
  shared = copyExample(mkdtempSync(join(tmpdir(), 'crucible-test-')));
});

afterAll(async () => {
  for (const ref of made)
    await client
      .getImage(ref)
      .remove({ force: true })
      .catch(() => undefined);
  if (shared) rmSync(shared, { recursive: true, force: true });
});

/** examples/docker in `dir`, with a nonce in the build context so its image is this file's own. */
function copyExample(dir: string): string {
  cpSync(resolve('examples/docker'), dir, { recursive: true });
  writeFileSync(join(dir, 'env', 'nonce.txt'), randomBytes(8).toString('hex'));
  return dir;
}

/** A copy of the example of the test's own, for a test that edits it. */
function exampleCopy(): string {
  return copyExample(tempDir());
}

function attemptsOf(dir: string, runId: string): AttemptResult[] {
  const plan = JSON.parse(readFileSync(join(dir, '.crucible', 'runs', runId, 'plan.json'), 'utf8')) as { attempts: Array<{ attemptId: string }> };
  return plan.attempts.map(
    (a) => JSON.parse(readFileSync(join(dir, '.crucible', 'runs', runId, 'attempts', a.attemptId, 'attempt.json'), 'utf8')) as AttemptResult,
  );
}

function runIdOf(stdout: string): string {
  return (JSON.parse(stdout) as { runId: string }).runId;
}

describe('the Dockerfile example under --sandbox docker', () => {
  it(
    'builds once, is cached on the next run, passes with oracle, fails with nop, and shows its provenance',
    async () => {
      const dir = shared;
      const first = await runCli(['run', 'tasks.yaml', '--sandbox', 'docker', '--agent', 'oracle', '--agent', 'nop', '--json'], { cwd: dir, attempts: 2 });
      expect(first.stderr).toMatch(/environment: building env\/Dockerfile as crucible-env:[0-9a-f]{12}/);
      // Once for the run (the preflight and both attempts share it), not per attempt.
      expect(first.stderr.match(/environment: building/g)).toHaveLength(1);
      expect(first.status).toBe(1);
      const firstRun = runIdOf(first.stdout);
      const [oracle, nop] = attemptsOf(dir, firstRun);
      expect(oracle).toMatchObject({ agent: 'oracle', verdict: 'PASS', sandbox: 'docker' });
      expect(oracle?.heldOut?.parsed).toBe(3);
      expect(nop).toMatchObject({ agent: 'nop', verdict: 'FAIL' });
      const provenance = oracle?.environment;
      made.add(provenance?.imageId ?? '');
      expect(provenance).toMatchObject({
        source: 'dockerfile',
        reference: 'env/Dockerfile',
        repoDigest: null,
        immutable: false,
        limits: { cpus: 1, memoryBytes: 1024 ** 3, pids: 256 },
      });
      expect(provenance?.imageId).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(provenance?.containerImageId).toBe(provenance?.imageId);
      expect(provenance?.engineVersion).toMatch(/^\d+\.\d+/);

      const second = await runCli(['run', 'tasks.yaml', '--sandbox', 'docker', '--agent', 'oracle', '--json'], { cwd: dir, attempts: 1 });
      expect(second.status).toBe(0);
      expect(second.stderr).toMatch(/environment: env\/Dockerfile unchanged, using crucible-env:/);
      expect(second.stderr).not.toMatch(/environment: building/);
      const [again] = attemptsOf(dir, runIdOf(second.stdout));
      expect(again?.environment?.imageId).toBe(provenance?.imageId);

      const shown = await runCli(['show', oracle?.attemptId ?? ''], { cwd: dir });
      expect(shown.status).toBe(0);
      expect(shown.stdout).toContain('reference Dockerfile env/Dockerfile');
      expect(shown.stdout).toContain(`image ${provenance?.imageId}`);
      expect(shown.stdout).toContain('digest none (local image: mutable)');
      expect(shown.stdout).toMatch(/platform linux\/\w+ · limits cpus 1, memory 1 GiB, pids 256 · engine Docker \d+\.\d+/);

      const validated = await runCli(['validate', 'tasks.yaml', '--sandbox', 'docker', '--runs', '1'], { cwd: dir, attempts: 2 });
      expect(validated.stdout + validated.stderr).toMatch(/valid/i);
      expect(validated.status).toBe(0);
    },
    attemptBudget(6),
  );

  it(
    'refuses the task under bwrap or local before any attempt, naming the fix',
    async () => {
      const dir = shared;
      for (const sandbox of ['local', 'bwrap']) {
        const r = await runCli(['run', 'tasks.yaml', '--sandbox', sandbox, '--agent', 'oracle'], { cwd: dir });
        expect(r.status).toBe(2);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).toContain(
          `tasks[0].environment: task py-deadline-overspent runs in a Docker image, which the ${sandbox} sandbox cannot run (fix: add --sandbox docker)`,
        );
      }
    },
    attemptBudget(1),
  );
});

describe('an image that is not there', () => {
  it(
    'is a task error naming the file, the field, the image and the fix, and no attempt runs',
    async () => {
      const dir = exampleCopy();
      const yaml = readFileSync(join(dir, 'tasks.yaml'), 'utf8').replace(/dockerfile: env\/Dockerfile/, 'image: crucible-test/absent:1');
      writeFileSync(join(dir, 'tasks.yaml'), yaml);
      const r = await runCli(['run', 'tasks.yaml', '--sandbox', 'docker', '--agent', 'oracle', '--json'], { cwd: dir });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain(
        'tasks.yaml: tasks[0].environment.image: image crucible-test/absent:1 is not on this machine and pull is never (fix: docker pull crucible-test/absent:1, or set environment.pull: missing)',
      );
      const [attempt] = attemptsOf(dir, runIdOf(r.stdout));
      expect(attempt).toMatchObject({ verdict: 'ERROR', cause: 'task_error' });
      expect(attempt?.timings.agentMs).toBe(0);
    },
    attemptBudget(1),
  );
});

describe('held-out tests under docker', () => {
  it(
    'run after the agent container is gone: a process the agent left behind cannot plant tests in them',
    async () => {
      // The shared copy: its image is the first test's (or built here, when this test runs alone).
      const dir = shared;
      const task = loadTaskSet(join(dir, 'tasks.yaml')).tasks[0] as Task;
      const resolved = await resolveEnvironments([task]);
      const env = resolved.get(task.id);
      if (!env?.ok) throw new Error(`environment not resolved: ${JSON.stringify(env)}`);
      made.add(env.environment.imageId);
      // Fixes the bug, then leaves a process that waits for the workspace path to name another
      // directory (the harness's fresh copy for the tests) and writes a failing held-out test there.
      const script = [
        "sed -i 's/    return left/    return max(0, left)/' deadline.py",
        'ws=$PWD; ino=$(stat -c %i .)',
        '( while [ "$(stat -c %i "$ws" 2>/dev/null)" = "$ino" ]; do sleep 0.05; done; ' +
          'while :; do mkdir -p "$ws/tests_held_out"; printf "def test_planted():\\n    assert False\\n" > "$ws/tests_held_out/test_planted.py"; echo x > "$ws/planted.txt"; sleep 0.02; done ) >/dev/null 2>&1 &',
      ].join('\n');
      const lingering: Agent = {
        name: 'lingering',
        async run(ctx) {
          const r = await ctx.executor.exec({ argv: ['sh', '-c', script], cwd: ctx.workspace, timeoutMs: 30_000, network: 'none', signal: ctx.signal });
          return r.exitCode === 0 ? { stopReason: 'completed' } : { stopReason: 'error', error: r.stderr };
        },
      };
      const stateDir = tempDir();
      const plan = { attemptId: 'held', runId: 'r', taskId: task.id, taskVersion: task.version, agent: 'lingering', trial: 0, index: 0 };
      const environments = new Map<string, ResolvedEnvironment>([[task.id, env.environment]]);
      const a = await runAttempt(plan, task, lingering, { runDir: join(stateDir, 'runs', 'r'), stateDir, sandbox: 'docker', environments });
      expect(a).toMatchObject({ verdict: 'PASS', cause: 'passed' });
      // Three held-out cases, all passing: no planted fourth.
      expect(a.heldOut).toMatchObject({ parsed: 3, failToPass: { failing: [] }, passToPass: { failing: [] } });
      expect((a.heldOut?.failToPass.passed ?? 0) + (a.heldOut?.passToPass.passed ?? 0)).toBe(3);
      expect(a.diff?.files.map((f) => f.path)).toEqual(['deadline.py']);
      // Nothing of this process's is left running: the agent's container went with its phase.
      const left = await client.listContainers({ all: true, filters: { label: [`${CONTAINER_OWNER_LABEL}=${ownerLabelValue()}`] } });
      expect(left).toEqual([]);
    },
    attemptBudget(1),
  );
});

describe('compare under docker', () => {
  it(
    'reports two runs of one tag that named two different images as different',
    async () => {
      const dir = exampleCopy();
      const tag = `crucible-test/mutable:${process.pid}`;
      const [repo, name] = tag.split(':') as [string, string];
      made.add(tag);
      const yaml = readFileSync(join(dir, 'tasks.yaml'), 'utf8').replace(/dockerfile: env\/Dockerfile/, `image: ${tag}`);
      writeFileSync(join(dir, 'tasks.yaml'), yaml);
      const build = async (marker: string): Promise<void> => {
        const stream = await client.buildImage(
          { context: join(dir, 'env'), src: ['Dockerfile', 'vendor/durationkit/__init__.py'] },
          { t: `${repo}:${name}`, labels: { 'test.marker': marker, [HOST_VIEW_LABEL]: '1' } },
        );
        await new Promise<void>((done, fail) => client.modem.followProgress(stream, (e: Error | null) => (e ? fail(e) : done())));
      };
      const runs: string[] = [];
      for (const marker of ['one', 'two']) {
        await build(`${marker}-${randomBytes(4).toString('hex')}`);
        made.add((await client.getImage(tag).inspect()).Id);
        const r = await runCli(['run', 'tasks.yaml', '--sandbox', 'docker', '--agent', 'oracle', '--json'], { cwd: dir, attempts: 1 });
        expect(r.status).toBe(0);
        runs.push(runIdOf(r.stdout));
      }
      const [a, b] = runs.map((id) => attemptsOf(dir, id)[0]?.environment);
      expect(a?.reference).toBe(tag);
      expect(b?.reference).toBe(tag);
      expect(a?.imageId).not.toBe(b?.imageId);
      expect(a?.immutable).toBe(false);
      const compared = await runCli(['compare', runs[0] ?? '', runs[1] ?? '', '--json'], { cwd: dir });
      expect(compared.status).toBe(0);
      const json = JSON.parse(compared.stdout) as { environmentChanges?: Array<{ taskId: string }>; notes: string[] };
      expect(json.environmentChanges?.map((c) => c.taskId)).toEqual(['py-deadline-overspent']);
      expect(json.notes.join('\n')).toMatch(/ran on different images/);
    },
    attemptBudget(2),
  );
});
