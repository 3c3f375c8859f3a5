import { relative, resolve } from 'node:path';
import type { RunOptions } from '../../engine/index.js';
import type { SandboxKind } from '../../infra/sandbox/index.js';
import type { RunInput } from '../suite/index.js';
import { planGrade } from './plan.js';
import { predictionsDigest, readPredictions, type Prediction } from './predictions.js';

export interface GradeInput {
  /** The task set (or suite), loaded with loadRunInput. */
  input: RunInput;
  /** `--predictions`: a predictions JSONL/JSON file or a directory of `<task-id>.patch` files. */
  predictions: string;
  modelName?: string;
  skipUnknown?: boolean;
  stateDir: string;
  sandbox: SandboxKind;
  concurrency?: number;
  keepWorkspace?: boolean;
}

/**
 * The run that grades predictions: one trial of each (task, model) pair that has a prediction,
 * each model an agent that applies its patch. Everything after is the engine's ordinary run
 * (preflight, clean copies, every check, held-out tests, history, reports).
 */
export function gradeRunOptions(grade: GradeInput): { options: Omit<RunOptions, 'observer' | 'signal' | 'killSignal'>; skipped: Prediction[] } {
  const predictions = readPredictions(grade.predictions, grade.modelName === undefined ? {} : { modelName: grade.modelName });
  const shown = displayPath(grade.input.file);
  const plan = planGrade(grade.input.tasks, predictions, { taskSetFile: shown, ...(grade.skipUnknown ? { skipUnknown: true } : {}) });
  const taskSets = new Map(plan.tasks.flatMap((t) => (grade.input.taskSets.has(t.id) ? [[t.id, grade.input.taskSets.get(t.id) as string] as const] : [])));
  return {
    options: {
      taskSetFile: shown,
      taskSetPath: grade.input.file,
      tasks: plan.tasks,
      taskIndex: grade.input.taskIndex,
      agents: plan.agents,
      trials: 1,
      only: plan.only,
      resolveAgent: plan.resolveAgent,
      ...(taskSets.size > 0 ? { taskSets } : {}),
      stateDir: grade.stateDir,
      settings: { sandbox: grade.sandbox, ...(grade.keepWorkspace ? { keepWorkspace: true } : {}) },
      ...(grade.concurrency === undefined ? {} : { concurrency: grade.concurrency }),
      predictions: {
        path: resolve(grade.predictions),
        ...(grade.modelName === undefined ? {} : { modelName: grade.modelName }),
        sha256: predictionsDigest(predictions),
      },
    },
    skipped: plan.skipped,
  };
}

function displayPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel === '' || rel.startsWith('..') ? file : rel;
}
