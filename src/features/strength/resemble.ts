import { readFileSync } from 'node:fs';
import type { AttemptResult, StrengthResemblance, StrengthSummary } from '../../core/types/index.js';
import { attemptDir, attemptFile } from '../../domain/run-dir/index.js';
import type { SurvivingMutant, TaskStrength } from './judge.js';
import { readRunStrengthTasks } from './file.js';
import { parsePatch } from './patch-hunks.js';
import { summarizeTaskSet } from './summary.js';

type RunAttempt = Pick<AttemptResult, 'attemptId' | 'agent' | 'taskId' | 'trial' | 'verdict'>;

/**
 * What a run's pages show of strength: its strength.json's summary and the PASSes resembling a
 * surviving mutant; nothing for a run without one. `attempts` is read only when a task has survivors.
 */
export function strengthOfRun(runDir: string, attempts: () => readonly RunAttempt[]): { strength?: StrengthSummary; resemblances?: StrengthResemblance[] } {
  const tasks = readRunStrengthTasks(runDir);
  if (!tasks) return {};
  const resemblances = tasks.some((t) => t.survivors.length > 0) ? passesResemblingSurvivors(runDir, attempts(), tasks) : [];
  return { strength: summarizeTaskSet(tasks), ...(resemblances.length > 0 ? { resemblances } : {}) };
}

/** The lines a patch adds, trimmed, by the file it adds them to. */
export function addedLinesOf(patch: string): Map<string, Set<string>> {
  const added = new Map<string, Set<string>>();
  for (const file of parsePatch(patch).files) {
    if (file.path === undefined) continue;
    const lines = added.get(file.path) ?? new Set<string>();
    for (const hunk of file.hunks) for (const line of hunk.lines) if (line.kind === '+' && line.text.trim() !== '') lines.add(line.text.trim());
    added.set(file.path, lines);
  }
  return added;
}

/**
 * The surviving mutants whose changed line the patch adds to the same file. A mutant that drops a
 * line has no line of its own to find, so it never matches.
 */
export function resemblingMutants(patch: string, survivors: readonly SurvivingMutant[]): SurvivingMutant[] {
  if (survivors.length === 0) return [];
  const added = addedLinesOf(patch);
  return survivors.filter((m) => m.after !== null && m.after.trim() !== '' && (added.get(m.file)?.has(m.after.trim()) ?? false));
}

/**
 * The run's PASSes whose diff resembles a surviving mutant of their task, read from each attempt's
 * diff.patch (the harness's own diff of the workspace, not anything the agent said). An attempt
 * with no diff file has nothing to compare and is not flagged.
 */
export function passesResemblingSurvivors(runDir: string, attempts: readonly RunAttempt[], tasks: readonly TaskStrength[]): StrengthResemblance[] {
  const survivors = new Map(tasks.filter((t) => t.survivors.length > 0).map((t) => [t.taskId, t.survivors]));
  const found: StrengthResemblance[] = [];
  for (const a of attempts) {
    const mine = survivors.get(a.taskId);
    if (a.verdict !== 'PASS' || mine === undefined) continue;
    let patch: string;
    try {
      patch = readFileSync(attemptFile(attemptDir(runDir, a.attemptId), 'diff'), 'utf8');
    } catch {
      continue;
    }
    const matched = resemblingMutants(patch, mine);
    if (matched.length > 0)
      found.push({
        attemptId: a.attemptId,
        agent: a.agent,
        taskId: a.taskId,
        trial: a.trial,
        mutants: matched.map((m) => ({ id: m.id, operator: m.operator, file: m.file, line: m.line, after: m.after ?? '' })),
      });
  }
  return found;
}
