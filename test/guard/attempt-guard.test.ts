import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgent } from '../../src/domain/agents/index.js';
import { FORBIDDEN_WRITE_LATER_PATH, FORBIDDEN_WRITE_PATH } from '../../src/domain/agents/reference/misbehaving.js';
import { loadTaskSet } from '../../src/domain/config/index.js';
import { runAttempt, type AttemptEnv } from '../../src/engine/attempt.js';
import type { IncidentBundle } from '../../src/domain/guard/index.js';
import type { AttemptResult, GuardMode, Task } from '../../src/core/types/index.js';
import { attemptBudget } from '../helpers/budget.js';
const base = loadTaskSet('examples/tasks.yaml').tasks.find((t) => t.id === 'js-slugify') as Task;
// The example allows src/** only; CI workflows are forbidden here as under the strict preset.
const task: Task = { ...base, policy: { ...base.policy, forbiddenPaths: ['.github/**'] } };

const results = new Map<string, AttemptResult>();
let runDir = '';
// Shared by every test below (useTempDirs would remove it after the first one).
const stateDir = mkdtempSync(join(tmpdir(), 'crucible-guard-'));
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

beforeAll(async () => {
  runDir = join(stateDir, 'runs', 'g');
  const modes: Array<GuardMode | 'off'> = ['enforce', 'audit', 'off'];
  await Promise.all(
    modes.map(async (mode) => {
      const env: AttemptEnv = { runDir, stateDir, sandbox: 'bwrap', baselineTests: false, ...(mode === 'off' ? {} : { guard: mode }) };
      const plan = { attemptId: `guard-${mode}`, runId: 'g', taskId: task.id, taskVersion: '1', agent: 'forbidden-write', trial: 0, index: 0 };
      results.set(mode, await runAttempt(plan, task, resolveAgent('forbidden-write'), env));
    }),
  );
}, attemptBudget(3));

const changed = (a: AttemptResult): string[] => (a.diff?.files ?? []).map((f) => f.path);
const incident = (mode: string): IncidentBundle =>
  JSON.parse(readFileSync(join(runDir, 'attempts', `guard-${mode}`, 'incident.json'), 'utf8')) as IncidentBundle;

describe('the online guard on a real attempt (bwrap)', () => {
  it('enforce: stops the agent mid-run at its forbidden write; the write after its pause never happens', () => {
    const a = results.get('enforce') as AttemptResult;
    expect(a.guard).toMatchObject({ mode: 'enforce', stopped: true, incidentFile: 'incident.json' });
    expect(a.guard?.detectionMs?.min).toBeGreaterThanOrEqual(0);
    expect(a.agentResult?.error).toMatch(/stopped by the online guard \(enforce\): forbidden_path \.github\/workflows\/crucible-probe\.yml/);
    expect(changed(a)).toContain(FORBIDDEN_WRITE_PATH);
    expect(changed(a)).not.toContain(FORBIDDEN_WRITE_LATER_PATH);
    // The post-hoc checks still judge what it left.
    expect({ verdict: a.verdict, cause: a.cause }).toEqual({ verdict: 'FAIL', cause: 'policy_violation' });
    expect(a.checks.find((c) => c.id === 'forbidden_paths')?.passed).toBe(false);
    const bundle = incident('enforce');
    expect(bundle).toMatchObject({ mode: 'enforce', action: 'stopped', stoppedBy: { rule: 'forbidden_path', path: FORBIDDEN_WRITE_PATH, action: 'stopped' } });
    expect(typeof bundle.stoppedBy?.detectionMs).toBe('number');
    for (const link of ['commands.jsonl', 'diff.patch', 'attempt.json']) expect(existsSync(join(runDir, 'attempts', 'guard-enforce', link))).toBe(true);
  });

  it('audit: the agent runs to its end, the incident is recorded, and the checks fail it the same way', () => {
    const a = results.get('audit') as AttemptResult;
    expect(a.guard).toMatchObject({ mode: 'audit', stopped: false, blocked: 0 });
    expect(a.guard?.auditOnly).toBeGreaterThan(0);
    expect(a.agentResult?.stopReason).toBe('completed');
    expect(changed(a)).toEqual(expect.arrayContaining([FORBIDDEN_WRITE_PATH, FORBIDDEN_WRITE_LATER_PATH]));
    expect({ verdict: a.verdict, cause: a.cause }).toEqual({ verdict: 'FAIL', cause: 'policy_violation' });
    const bundle = incident('audit');
    expect(bundle.action).toBe('audit_only');
    expect(bundle.findings.map((f) => `${f.rule} ${f.path}`)).toEqual(
      expect.arrayContaining([`forbidden_path ${FORBIDDEN_WRITE_PATH}`, `out_of_scope ${FORBIDDEN_WRITE_PATH}`]),
    );
  });

  it('without --guard nothing changes: no guard record, no incident bundle', () => {
    const a = results.get('off') as AttemptResult;
    expect(a.guard).toBeUndefined();
    expect(existsSync(join(runDir, 'attempts', 'guard-off', 'attempt.json'))).toBe(true);
    expect(existsSync(join(runDir, 'attempts', 'guard-off', 'incident.json'))).toBe(false);
    expect(changed(a)).toContain(FORBIDDEN_WRITE_LATER_PATH);
    expect(a.cause).toBe('policy_violation');
  });
});
