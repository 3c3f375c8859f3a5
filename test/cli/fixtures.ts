import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A task set of `count` tiny tasks on one repo whose test is a shell script writing JUnit:
 * `oracle` fixes value.txt and passes, `nop` fails. Attempts take a fraction of a second.
 */
export function tinyTaskSet(dir: string, count: number): string {
  const repo = join(dir, 'repo');
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, 'value.txt'), 'wrong\n');
  writeFileSync(
    join(repo, 'check.sh'),
    [
      'if grep -q right value.txt; then f=""; else f="<failure message=\\"value is wrong\\"/>"; fi',
      'printf \'<testsuite name="s" tests="2"><testcase classname="check" name="fixed">%s</testcase><testcase classname="check" name="kept"/></testsuite>\' "$f" > "$CRUCIBLE_JUNIT"',
      '[ -z "$f" ]',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'fix.patch'), ['--- a/value.txt', '+++ b/value.txt', '@@ -1 +1 @@', '-wrong', '+right', ''].join('\n'));
  const tasks = Array.from({ length: count }, (_, i) =>
    [
      `  - id: t${i + 1}`,
      '    repo: { path: repo }',
      `    instruction: make value.txt say right (${i + 1})`,
      '    tests:',
      '      command: sh check.sh',
      '      fail_to_pass: [check::fixed]',
      '      pass_to_pass: all_others',
      '    oracle: { patch: fix.patch }',
      `    metadata: { tags: [${i % 2 === 0 ? 'even' : 'odd'}] }`,
    ].join('\n'),
  );
  const file = join(dir, 'tasks.yaml');
  writeFileSync(file, `defaults:\n  limits: { agent_timeout: 1m, test_timeout: 1m }\ntasks:\n${tasks.join('\n')}\n`);
  return file;
}

/**
 * tinyTaskSet's repo with one sound task and three broken ones: `typo` names a fail-to-pass id
 * the tests do not report (`check::fixd`), `stale-oracle` has a patch that does not apply, and
 * `gone` has a git repo that cannot be fetched.
 */
export function brokenTaskSet(dir: string): string {
  const file = tinyTaskSet(dir, 1);
  writeFileSync(join(dir, 'stale.patch'), ['--- a/value.txt', '+++ b/value.txt', '@@ -1 +1 @@', '-wrong once', '+right', ''].join('\n'));
  const task = (id: string, repo: string, failToPass: string, patch: string): string =>
    [
      `  - id: ${id}`,
      `    repo: ${repo}`,
      '    instruction: make value.txt say right',
      '    tests:',
      '      command: sh check.sh',
      `      fail_to_pass: [${failToPass}]`,
      `    oracle: { patch: ${patch} }`,
    ].join('\n');
  const extra = [
    task('typo', '{ path: repo }', 'check::fixd', 'fix.patch'),
    task('stale-oracle', '{ path: repo }', 'check::fixed', 'stale.patch'),
    task('gone', `{ git: ${JSON.stringify(`file://${join(dir, 'no-such-repo.git')}`)}, commit: main }`, 'check::fixed', 'fix.patch'),
  ];
  writeFileSync(file, `${readFileSync(file, 'utf8').trimEnd()}\n${extra.join('\n')}\n`);
  return file;
}
