import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runViewOf } from '../../src/features/report/data.js';
import { renderMarkdown } from '../../src/features/report/markdown.js';
import { resemblingMutants, type StrengthFile, type TaskStrength } from '../../src/features/strength/index.js';
import type { AttemptResult } from '../../src/core/types/index.js';
import { attempt, summaryOf } from '../report/fixtures.js';
import { useTempDirs } from '../helpers/tmp.js';
import { strengthEntry } from './fixtures.js';

const tempDir = useTempDirs();

type Survivor = TaskStrength['survivors'][number];
const survivor = (id: string, file: string, after: string | null): Survivor => ({
  id,
  operator: after === null ? 'remove-statement' : 'index-off-by-one',
  file,
  line: 4,
  before: '    return xs[mid]',
  after,
  patchFile: `strength/t/${id}.patch`,
});

const diffAdding = (file: string, ...lines: string[]): string =>
  [
    `diff --git a/${file} b/${file}`,
    `--- a/${file}`,
    `+++ b/${file}`,
    `@@ -1,1 +1,${lines.length + 1} @@`,
    ' def median(xs):',
    ...lines.map((l) => `+${l}`),
    '',
  ].join('\n');

describe('a diff that resembles a surviving mutant', () => {
  it('matches an added line of the same file, whitespace trimmed; never another file, a context line or a dropped line', () => {
    const survivors = [
      survivor('m1', 'median.py', '    return xs[mid + 1]'),
      survivor('m2', 'other.py', 'return xs[mid + 1]'),
      survivor('m3', 'median.py', null),
    ];
    expect(resemblingMutants(diffAdding('median.py', '    mid = len(xs) // 2', '\treturn xs[mid + 1]  '), survivors).map((m) => m.id)).toEqual(['m1']);
    expect(resemblingMutants(diffAdding('median.py', '    return xs[mid]'), survivors)).toEqual([]);
    // The line only as context (the file had it before): the attempt did not write it.
    const context = ['diff --git a/median.py b/median.py', '--- a/median.py', '+++ b/median.py', '@@ -1,1 +1,2 @@', ' return xs[mid + 1]', '+x = 1', ''].join(
      '\n',
    );
    expect(resemblingMutants(context, survivors)).toEqual([]);
  });

  it('report.md flags a PASS whose diff.patch adds a surviving mutant’s line, and no FAIL or unrelated pass', () => {
    const runDir = tempDir();
    const strength = (taskId: string, survivors: Survivor[]): TaskStrength => ({ ...strengthEntry(taskId, 'k', 0.8, survivors.length), survivors });
    const file: StrengthFile = {
      schemaVersion: 1,
      tasks: [
        strength('py-median', [survivor('m1', 'median.py', 'return xs[mid + 1]')]),
        strength('js-slugify', [survivor('m2', 'slug.js', 'return s.trim();')]),
      ],
    };
    writeFileSync(join(runDir, 'strength.json'), JSON.stringify(file));
    const attempts: AttemptResult[] = [
      attempt({ taskId: 'py-median', agent: 'model-a' }),
      attempt({ taskId: 'js-slugify', agent: 'model-a' }),
      attempt({ taskId: 'py-median', agent: 'model-b', verdict: 'FAIL' }),
    ];
    const diffs = [
      diffAdding('median.py', '    return xs[mid + 1]'),
      diffAdding('slug.js', '  return s.toLowerCase();'),
      diffAdding('median.py', '    return xs[mid + 1]'),
    ];
    attempts.forEach((a, i) => {
      mkdirSync(join(runDir, 'attempts', a.attemptId), { recursive: true });
      writeFileSync(join(runDir, 'attempts', a.attemptId, 'diff.patch'), diffs[i] as string);
    });

    const view = runViewOf({ runDir, summary: summaryOf(attempts), attempts });
    expect(view.resemblances).toEqual([
      {
        attemptId: attempts[0]?.attemptId,
        agent: 'model-a',
        taskId: 'py-median',
        trial: attempts[0]?.trial,
        mutants: [{ id: 'm1', operator: 'index-off-by-one', file: 'median.py', line: 4, after: 'return xs[mid + 1]' }],
      },
    ]);
    const md = renderMarkdown(view, attempts);
    expect(md).toContain('## Passes that resemble a surviving mutant');
    expect(md).toContain(`| \`${attempts[0]?.attemptId}\` | model-a | py-median | median.py:4 index-off-by-one \`return xs[mid + 1]\` |`);
    expect(md).not.toContain(`| \`${attempts[1]?.attemptId}\``);
  });

  it('flags nothing in a run without strength.json', () => {
    const runDir = tempDir();
    const attempts = [attempt({ taskId: 'py-median', agent: 'model-a' })];
    mkdirSync(join(runDir, 'attempts', attempts[0]?.attemptId as string), { recursive: true });
    writeFileSync(join(runDir, 'attempts', attempts[0]?.attemptId as string, 'diff.patch'), diffAdding('median.py', 'return xs[mid + 1]'));
    const view = runViewOf({ runDir, summary: summaryOf(attempts), attempts });
    expect(view.resemblances).toBeUndefined();
    expect(renderMarkdown(view, attempts)).not.toContain('resemble');
  });
});
