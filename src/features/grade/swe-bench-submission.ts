import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { version } from '../../core/version.js';
import { writeFileAtomic } from '../../domain/run-dir/index.js';
import { predictionsJsonl, resolutionFile, type SweBenchExport, type SweBenchExportResult, type SweBenchInstance } from './export-swe-bench.js';

/*
 * A leaderboard submission folder as SWE-bench's experiments repository lays one out (its README:
 * evaluation/<split>/<date>_<model>/ holding all_preds.jsonl, metadata.yaml, README.md, logs/ and
 * trajs/; its checklist.md and swebench.com/submit.html for what each holds):
 *
 *   all_preds.jsonl              one prediction a line, model_patch the submitted patch
 *   metadata.yaml                info (name, report, site, authors, logo) and tags; the fields only
 *                                the submitter knows are left empty for them to fill in
 *   README.md                    what produced the folder, the results, the checklist to confirm
 *   logs/<instance_id>/          patch.diff, report.json, test_output.txt, run_instance.log, eval.sh
 *                                (what SWE-bench's harness leaves per instance)
 *   trajs/<instance_id>.json     the attempt's trajectory, in Harbor's ATIF, when it kept one
 *   results/results.json         the resolved ids, as the repository's analysis script writes them
 */

/** A trajectory to keep in trajs/, by instance: the writer is given by the caller (ATIF lives in report). */
export type TrajectoryFor = (instance: SweBenchInstance) => Promise<string | undefined>;

export interface SubmissionOptions {
  runId: string;
  /** The run's start (ISO): the folder's date. */
  createdAt: string;
  trajectory: TrajectoryFor;
}

export interface SubmissionFolder {
  agent: string;
  folder: string;
  /** Instances whose attempt kept no trajectory: trajs/ lacks them. */
  missingTrajs: string[];
}

/** The folder name the repository asks for: the date, then the model (`/` as `__`, as SWE-bench names its files). */
export function submissionFolderName(agent: string, createdAt: string): string {
  return `${createdAt.slice(0, 10).replace(/-/g, '')}_${agent.replace(/\//g, '__')}`;
}

/** Writes one submission folder per agent under `dir`; returns the folders written. */
export async function writeSubmission(dir: string, result: SweBenchExportResult, options: SubmissionOptions): Promise<SubmissionFolder[]> {
  const written: SubmissionFolder[] = [];
  for (const e of result.exports) {
    const folder = join(dir, submissionFolderName(e.agent, options.createdAt));
    for (const sub of ['logs', 'trajs', 'results']) await mkdir(join(folder, sub), { recursive: true });
    await writeFileAtomic(join(folder, 'all_preds.jsonl'), predictionsJsonl(e));
    const missingTrajs: string[] = [];
    for (const instance of e.instances) {
      await writeInstanceLogs(join(folder, 'logs', instance.instanceId), instance, options.runId);
      const traj = await options.trajectory(instance);
      if (traj === undefined) missingTrajs.push(instance.instanceId);
      else await writeFileAtomic(join(folder, 'trajs', `${instance.instanceId}.json`), traj);
    }
    await writeFileAtomic(join(folder, 'results', 'results.json'), `${JSON.stringify(resultsJson(e), null, 2)}\n`);
    await writeFileAtomic(join(folder, 'results', 'resolution.json'), `${JSON.stringify(resolutionFile(e, result.totalFrom), null, 2)}\n`);
    await writeFileAtomic(join(folder, 'metadata.yaml'), metadataYaml(e));
    await writeFileAtomic(join(folder, 'README.md'), readme(e, options.runId, missingTrajs));
    written.push({ agent: e.agent, folder, missingTrajs });
  }
  return written;
}

/** What SWE-bench's harness leaves in logs/run_evaluation/<run>/<model>/<instance_id>/. */
async function writeInstanceLogs(dir: string, instance: SweBenchInstance, runId: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(join(dir, 'patch.diff'), instance.patch);
  await writeFileAtomic(join(dir, 'report.json'), `${JSON.stringify({ [instance.instanceId]: instance.report }, null, 4)}\n`);
  const a = instance.attempt;
  const tests = a?.tests;
  await writeFileAtomic(
    join(dir, 'test_output.txt'),
    tests === undefined
      ? 'no test run: the patch was not evaluated\n'
      : `# ${tests.command}\n# exit ${tests.exitCode ?? 'signal'}${tests.timedOut ? ' (timed out)' : ''}; Crucible keeps the head, the tail and every failure line of the output\n${tests.outputTail}\n`,
  );
  if (tests !== undefined) await writeFileAtomic(join(dir, 'eval.sh'), `#!/bin/sh\n${tests.command}\n`);
  const log = [
    `Crucible ${version()} · run ${runId} · attempt ${instance.attemptId}`,
    ...(a
      ? [
          `task ${a.taskId} (version ${a.taskVersion}) · agent ${a.agent} · sandbox ${a.sandbox}`,
          `${a.startedAt} → ${a.finishedAt}`,
          `verdict ${a.verdict} · cause ${a.cause}${a.message ? ` · ${a.message}` : ''}`,
          ...a.checks.map((c) => `check ${c.id}: ${c.passed ? 'passed' : 'failed'} (${c.severity}) ${c.message}`),
        ]
      : ['attempt.json is missing: only the checkpoint was read']),
    `resolved by SWE-bench's rule: ${instance.resolution['swe-bench']} · by Crucible's: ${instance.resolution.crucible}`,
    `model_patch: ${instance.patchSource === 'submitted' ? 'the submitted patch' : instance.patchSource === 'diff' ? "the attempt's captured diff" : 'none'}`,
    '',
  ];
  await writeFileAtomic(join(dir, 'run_instance.log'), log.join('\n'));
}

/** results/results.json as the experiments repository's analysis writes it: no_generation, no_logs, resolved. */
function resultsJson(e: SweBenchExport): Record<string, string[]> {
  return {
    no_generation: [...e.report.empty_patch_ids],
    no_logs: [...e.report.error_ids],
    resolved: [...e.report.resolved_ids],
  };
}

/** YAML scalars written as JSON strings, which YAML reads as they are. */
const q = (s: string): string => JSON.stringify(s);

function metadataYaml(e: SweBenchExport): string {
  return [
    '# Fill in what only you know: info.report (the technical report or blog post the leaderboard requires),',
    '# info.site, info.authors, info.logo, tags.org, and whether model and system are open source.',
    'info:',
    `  name: ${q(e.agent)}`,
    '  report: ""',
    '  site: ""',
    '  authors: ""',
    '  logo: ""',
    'tags:',
    '  checked: false',
    '  model:',
    `    - ${q(e.agent)}`,
    '  org: []',
    '  os_model: false',
    '  os_system: false',
    '  system:',
    '    attempts: "1"',
    '',
  ].join('\n');
}

function readme(e: SweBenchExport, runId: string, missingTrajs: readonly string[]): string {
  const r = e.report;
  const pct = r.total_instances === 0 ? '0.00' : ((100 * r.resolved_instances) / r.total_instances).toFixed(2);
  return [
    `# ${e.agent}`,
    '',
    `Written by Crucible ${version()} (\`crucible export ${runId} --format swe-bench --submission …\`) from run ${runId}.`,
    '',
    '## Results',
    '',
    `- resolved: ${r.resolved_instances} of ${r.total_instances} (${pct}%) by SWE-bench's rule: every FAIL_TO_PASS and every PASS_TO_PASS test passes`,
    `- resolved by Crucible's rule, which excuses tests already broken at the baseline: ${e.resolvedBy.crucible.length}`,
    `- submitted ${r.submitted_instances} · completed ${r.completed_instances} · unresolved ${r.unresolved_instances} · empty patch ${r.empty_patch_instances} · error ${r.error_instances}`,
    ...(missingTrajs.length > 0
      ? ['', `No trajectory was kept for ${missingTrajs.length} instance(s) (${missingTrajs.join(', ')}): add your own reasoning traces to trajs/.`]
      : []),
    '',
    '## Checklist',
    '',
    'Confirm each before opening the pull request:',
    '',
    '- [ ] One prediction per instance (pass@1): no instance was attempted more than once',
    '- [ ] The system never read the test lists (`FAIL_TO_PASS`, `PASS_TO_PASS`)',
    "- [ ] The system never read the dataset's `hints` field",
    '- [ ] No web browsing, or browsing that cannot look up solutions to the instances',
    '',
  ].join('\n');
}
