import { InputError } from '../../core/errors.js';
import { planDesigns } from '../../domain/stats/index.js';
import { loadRunInput } from '../../features/suite/index.js';
import { wholeNumber } from '../args.js';
import type { CliIo } from '../io.js';

export interface PlanCommandOptions {
  detect: string;
  power?: string;
  sims?: string;
  json?: boolean;
}

/** `crucible plan <taskset> --detect 5pp`: trials and tasks a fixed design needs, and what adaptive spends instead. */
export async function planCommand(tasksetPath: string, opts: PlanCommandOptions, io: CliIo): Promise<void> {
  const detect = parseDetect(opts.detect);
  const power = opts.power === undefined ? 0.8 : parseFraction('--power', opts.power, '0.8');
  const runs = wholeNumber('--sims', opts.sims, 200, 20, 100_000);
  const tasks = loadRunInput(tasksetPath).tasks.length;
  const plan = planDesigns({ tasks, detect, power, runs });
  if (opts.json) {
    io.stdout.write(`${JSON.stringify({ taskSet: tasksetPath, tasks, detect, power, ...plan }, null, 2)}\n`);
    return;
  }
  const pp = (x: number): string => `${(x * 100).toFixed(0)}%`;
  const lines = [
    `To separate two agents ${(detect * 100).toFixed(1)}pp apart with ${pp(power)} power at 95% (Crucible's paired sign-flip test), simulated ${runs} times per design, ${plan.model}:`,
    plan.fixed
      ? `  fixed:    ${plan.fixed.trials} trials per task and agent on the ${tasks} tasks = ${plan.fixed.attempts} attempts (power ${pp(plan.fixed.power)})`
      : `  fixed:    not reachable on ${tasks} tasks with up to 200 trials each: the task set is too small for this difference`,
    plan.tasksNeeded
      ? `  or:       ${plan.tasksNeeded.tasks} tasks × ${plan.tasksNeeded.trials} trials = ${plan.tasksNeeded.attempts} attempts (power ${pp(plan.tasksNeeded.power)})`
      : `  or:       more than 2000 tasks at 3 trials each`,
    plan.adaptive
      ? `  adaptive: ${Math.round(plan.adaptive.attempts)} attempts on average with --adaptive --max-attempts ${plan.adaptive.budget} (power ${pp(plan.adaptive.power)})`
      : `  adaptive: not simulated (no fixed design on these tasks to take the budget from)`,
    `  The model has no easy or impossible tasks; on task sets where most tasks agree, both need fewer and adaptive saves more (docs/adaptive.md, bench/adaptive.mjs).`,
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
}

/** `5pp`, `5%` or `0.05` → 0.05. */
export function parseDetect(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(pp|%)?\s*$/.exec(text);
  const value = m ? (m[2] ? Number(m[1]) / 100 : Number(m[1])) : NaN;
  if (!(value > 0 && value < 1)) throw new InputError(`--detect ${text}: expected a difference in pass rate such as 5pp, 5% or 0.05 (fix: e.g. --detect 5pp)`);
  return value;
}

function parseFraction(flag: string, text: string, example: string): number {
  const value = Number(text);
  if (!/^\s*0?\.\d+\s*$/.test(text) || !(value > 0 && value < 1))
    throw new InputError(`${flag} ${text}: expected a number between 0 and 1 (fix: e.g. ${flag} ${example})`);
  return value;
}
