import { reportInstruction } from '../evidence/index.js';
import type { Task, TaskDefect, TestRunEvidence } from '../../core/types/index.js';
import { nearestId } from '../../core/format/index.js';

/** Where a task's fields are named in messages: its task-set file and its place there. */
export interface TaskWhere {
  file: string;
  /** `tasks[2]`, or `tasks[id=…]` when the task's position is not known. */
  prefix: string;
}

export function taskWhere(task: Pick<Task, 'id' | 'sourceFile'>, index?: number, file: string = task.sourceFile): TaskWhere {
  return { file, prefix: index === undefined ? `tasks[id=${task.id}]` : `tasks[${index}]` };
}

/** One line per defect: `file: tasks[2].tests.fail_to_pass[0]: problem (fix: …)`. */
export function formatDefect(defect: TaskDefect): string {
  return `${defect.file}: ${defect.field}: ${defect.problem} (fix: ${defect.fix})`;
}

/**
 * What the task's baseline test run (the repo as the task gives it, before any agent) says is
 * wrong with the task: a test command with no usable report, fail-to-pass ids it does not report
 * or that already pass, explicitly listed pass-to-pass ids it does not report. `reported` are the
 * ids the run's JUnit report holds, for a "did you mean" fix.
 */
export function baselineDefects(
  task: Pick<Task, 'tests'>,
  where: TaskWhere,
  run: TestRunEvidence,
  reported: readonly string[],
  reportFile?: string,
  /**
   * The ids the oracle's run reports, when it was run: a fail-to-pass id missing at the baseline
   * but reported there is a test whose file crashed before the fix (its code throws as the file
   * loads), which SWE-bench counts as failing; only an id absent on both sides is a defect.
   */
  oracleReported?: ReadonlySet<string>,
): TaskDefect[] {
  const field = (path: string): string => `${where.prefix}.${path}`;
  const verifier = task.tests.reward !== undefined ? 'verifier' : 'test command';
  const commandField = field(task.tests.reward?.exec !== undefined ? 'tests.exec' : 'tests.command');
  if (run.notStarted !== undefined) {
    return [
      {
        file: where.file,
        field: commandField,
        problem: `the ${verifier} could not start at the baseline, so no test ran (${run.notStarted.reason})`,
        fix: notStartedFix(task),
      },
    ];
  }
  if (run.invalidReason !== undefined) {
    return [
      {
        file: where.file,
        field: commandField,
        problem:
          task.tests.reward !== undefined
            ? `the verifier gives no usable reward at the baseline, before any agent ran (${run.invalidReason})`
            : `the test command gives no usable report at the baseline, before any agent ran (${run.invalidReason})`,
        fix: invalidRunFix(task, run),
      },
    ];
  }
  const defects: TaskDefect[] = [];
  const missing = (ids: readonly string[], group: 'fail_to_pass' | 'pass_to_pass', failing: TestRunEvidence['failToPass']['failing']): void => {
    const absent = new Set(failing.filter((f) => f.reason === 'missing').map((f) => f.id));
    ids.forEach((id, index) => {
      if (!absent.has(id)) return;
      absent.delete(id);
      if (group === 'fail_to_pass' && oracleReported?.has(id) === true) return;
      const near = nearestId(id, oracleReported ? [...reported, ...oracleReported] : reported);
      defects.push({
        file: where.file,
        field: field(`tests.${group}[${index}]`),
        problem: `"${id}" is not among the ${reported.length} test${reported.length === 1 ? '' : 's'} the baseline run reports${oracleReported && group === 'fail_to_pass' ? ', nor among those the run with the oracle reports' : ''}`,
        fix: near !== undefined ? `did you mean "${near}"?` : `use an id as the test run reports it${reportFile ? ` (they are in ${reportFile})` : ''}`,
      });
    });
  };
  missing(task.tests.failToPass, 'fail_to_pass', run.failToPass.failing);
  if (Array.isArray(task.tests.passToPass)) missing(task.tests.passToPass, 'pass_to_pass', run.passToPass.failing);
  const failing = new Set(run.failToPass.failing.map((f) => f.id));
  const seen = new Set<string>();
  task.tests.failToPass.forEach((id, index) => {
    if (failing.has(id) || seen.has(id)) return;
    seen.add(id);
    defects.push({
      file: where.file,
      field: field(`tests.fail_to_pass[${index}]`),
      problem: `"${id}" already passes at the baseline, before any agent ran, so it cannot tell a fix from none`,
      fix: 'list only tests the fix makes pass, or pin the repo to a commit before the fix',
    });
  });
  return defects;
}

/** The oracle's patch does not apply to the repo after its setup, or its script fails there. */
export function oracleDefect(where: TaskWhere, why: string, kind: 'patch' | 'script' = 'patch'): TaskDefect {
  if (kind === 'script') {
    return {
      file: where.file,
      field: `${where.prefix}.oracle.script`,
      problem: `fails in the repo after setup (${why})`,
      fix: 'run the script in a checkout of the repo after setup and fix what fails (it runs without network)',
    };
  }
  return {
    file: where.file,
    field: `${where.prefix}.oracle.patch`,
    problem: `does not apply to the repo after setup (${why})`,
    fix: "make it a `git diff` taken against the task's repo as checked out, after setup",
  };
}

/** A repo source that cannot be fetched. */
export function repoDefect(where: TaskWhere, field: string, problem: string, fix: string): TaskDefect {
  return { file: where.file, field: `${where.prefix}.${field}`, problem, fix };
}

/** What to do about a run whose program never started, by how the task runs it. */
function notStartedFix(task: Pick<Task, 'tests'>): string {
  const exec = task.tests.reward?.exec;
  if (exec !== undefined)
    return `make ${exec[0] ?? 'the program'} executable and the interpreter on its #! line present in the task's image (a #!/bin/bash script needs bash there; #!/bin/sh does not)`;
  return "make the command and the interpreters it calls present in the task's environment (exit 127: not found; 126: not executable)";
}

/** What to do about a run that gave no usable result, by the task's kind: reward file, JUnit, or a stream report. */
function invalidRunFix(task: Pick<Task, 'tests'>, run: TestRunEvidence): string {
  if (run.timedOut)
    return "it did not finish within limits.test_timeout: raise limits.test_timeout, or make it faster (its output is in the attempt's baselineTests)";
  if (task.tests.reward !== undefined)
    return "run it in the task's environment and check it writes one number in [0, 1] to $CRUCIBLE_REWARD (or reward.txt / reward.json in $CRUCIBLE_REWARD_DIR; Harbor: /logs/verifier/reward.txt)";
  return `run it in the repo and ${reportInstruction(task.tests).replace('$CRUCIBLE_JUNIT', 'the file $CRUCIBLE_JUNIT names')}`;
}

/** The fail-to-pass ids the baseline's run does not report: each may be a test whose file crashed there. */
export function failToPassMissing(task: Pick<Task, 'tests'>, run: TestRunEvidence): string[] {
  const absent = new Set(run.failToPass.failing.filter((f) => f.reason === 'missing').map((f) => f.id));
  return task.tests.failToPass.filter((id) => absent.has(id));
}
