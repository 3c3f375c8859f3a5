import type { CheckInput } from '../../src/domain/checks/index.js';
import { effectivePolicy } from '../../src/domain/checks/index.js';
import type { CommandEvent } from '../../src/domain/evidence/command-log.js';
import { DEFAULT_TEST_PATHS } from '../../src/domain/config/index.js';
import type { DiffStats, FileChange, PolicySpec, Task, TestGroupOutcome, TestRunEvidence } from '../../src/core/types/index.js';

export const WS = '/w/attempt/workspace';

export function policySpec(over: Partial<PolicySpec> = {}): PolicySpec {
  return {
    preset: 'default',
    forbiddenPaths: [],
    allowedPaths: [],
    unsafeCommands: [],
    secrets: { paths: [], literals: [], presets: [] },
    severities: {},
    ...over,
  };
}

export function taskFor(
  over: { policy?: Partial<PolicySpec>; heldOut?: Task['heldOut']; tests?: Partial<Task['tests']> } = {},
): Pick<Task, 'id' | 'tests' | 'heldOut' | 'policy'> {
  return {
    id: 't',
    tests: { command: 'x', failToPass: ['f'], passToPass: 'all_others', testPaths: DEFAULT_TEST_PATHS, ...over.tests },
    heldOut: over.heldOut,
    policy: policySpec(over.policy),
  };
}

export function group(passed: string[], failing: TestGroupOutcome['failing'] = []): TestGroupOutcome {
  return { total: passed.length + failing.length, passed: passed.length, failing };
}

export function run(over: Partial<TestRunEvidence> = {}): TestRunEvidence {
  return {
    command: 'x',
    exitCode: 0,
    timedOut: false,
    durationMs: 1,
    parsed: 3,
    consistent: true,
    failToPass: group(['f']),
    passToPass: group(['a', 'b']),
    outputTail: '',
    ...over,
  };
}

export function diffOf(files: Array<Partial<FileChange> & { path: string }>): DiffStats {
  const full = files.map((f) => ({ kind: 'modified' as const, binary: false, added: 1, deleted: 0, ...f }));
  return { files: full, filesChanged: full.length, added: full.reduce((s, f) => s + f.added, 0), deleted: full.reduce((s, f) => s + f.deleted, 0) };
}

export function command(script: string, cwd = WS): CommandEvent {
  return {
    at: '',
    argv: ['sh', '-c', script],
    cwd,
    envNames: [],
    network: 'none',
    exitCode: 0,
    signal: null,
    timedOut: false,
    truncated: false,
    durationMs: 1,
  };
}

/** A CheckInput for a clean, passing attempt; override what a test is about. */
export function input(over: Partial<CheckInput> & { task?: ReturnType<typeof taskFor> } = {}): CheckInput {
  const task = over.task ?? taskFor();
  return {
    task,
    policy: effectivePolicy(task),
    diff: diffOf([{ path: 'src/a.js' }]),
    tests: run(),
    cases: [
      { id: 'f', status: 'passed' },
      { id: 'a', status: 'passed' },
      { id: 'b', status: 'passed' },
    ],
    tampering: { guarded: 2, findings: [], complete: true },
    commands: [],
    writeRoots: { workspace: WS, home: '/w/attempt/home', tmp: '/w/attempt/tmp', protected: ['/w'] },
    outsideWrites: { writes: [], watched: [], complete: true },
    sandboxEnforcesFs: true,
    addedLines: { files: [{ path: 'src/a.js', binary: false, lines: [{ line: 1, text: 'const x = 1;' }] }], complete: true },
    ...over,
  };
}
