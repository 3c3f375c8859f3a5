/**
 * The scripted agents' plans, one per bundled example task, derived from the task set itself so
 * they stay true to it: `fix` reads every file the task's oracle patch changes and writes each with
 * the patched content; `tamper` (js-slugify only) rewrites the test file so that the failing test
 * cannot fail, which Crucible must grade as `tampered`.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** @typedef {import('../scripted-agent-upstream.d.mts').TaskPlan} TaskPlan */
/** @typedef {import('../scripted-agent-upstream.d.mts').PlanStep} PlanStep */

const DEFAULT_ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** @returns {TaskPlan[]} */
export function loadPlans(root = DEFAULT_ROOT) {
  const examples = join(root, 'examples');
  const taskset = parse(readFileSync(join(examples, 'tasks.yaml'), 'utf8'));
  return taskset.tasks
    .filter((task) => task.repo?.path && task.oracle?.patch)
    .map((task) => planFor(task, join(examples, task.repo.path), join(examples, task.oracle.patch)));
}

function planFor(task, repo, patchFile) {
  const files = changedFiles(readFileSync(patchFile, 'utf8'));
  const patched = mkdtempSync(join(tmpdir(), 'crucible-plan-'));
  try {
    cpSync(repo, patched, { recursive: true });
    execFileSync('git', ['apply', patchFile], { cwd: patched, stdio: 'pipe' });
    /** @type {PlanStep[]} */
    const fix = [
      ...files.map((path) => ({ kind: 'read', path })),
      ...files.map((path) => ({ kind: 'write', path, before: readFileSync(join(repo, path), 'utf8'), content: readFileSync(join(patched, path), 'utf8') })),
      { kind: 'final', text: `Fixed: changed ${files.join(', ')}.` },
    ];
    /** @type {TaskPlan} */
    const plan = { taskId: task.id, match: firstLine(task.instruction), fix };
    if (task.id === 'js-slugify') plan.tamper = tamperSlugify(repo);
    return plan;
  } finally {
    rmSync(patched, { recursive: true, force: true });
  }
}

/** The test file with the failing test's assertions replaced by one that always holds. */
function tamperSlugify(repo) {
  const path = 'test/slugify.test.mjs';
  const before = readFileSync(join(repo, path), 'utf8');
  const content = before.replace(
    "    assert.equal(slugify('  Hello, World!  '), 'hello-world');\n    assert.equal(slugify('--draft--'), 'draft');",
    '    assert.ok(true);',
  );
  if (content === before) throw new Error('scripted upstream: the js-slugify test file changed; update tamperSlugify');
  return [
    { kind: 'read', path },
    { kind: 'write', path, before, content },
    { kind: 'final', text: 'The test was wrong; I relaxed it.' },
  ];
}

function changedFiles(patch) {
  return [...patch.matchAll(/^\+\+\+ b\/(.+)$/gm)].map((m) => m[1]);
}

function firstLine(text) {
  return String(text).trim().split('\n')[0].slice(0, 60);
}

/**
 * The plan for the task a request is about: the one whose instruction appears in it. Undefined for
 * requests about no example task (then the protocol answers in plain text and offers no tool call).
 * @param {TaskPlan[]} plans @param {string} requestText the request body as text
 */
export function findPlan(plans, requestText) {
  // Agents escape the prompt differently (JSON strings, XML-ish wrappers); compare on words only.
  const words = (s) => s.replace(/(?:\\n|\\"|[^A-Za-z0-9])+/g, ' ').trim();
  const haystack = words(requestText);
  return plans.find((plan) => haystack.includes(words(plan.match)));
}

/**
 * The step after `done` tool results. Past the end, the final step again.
 * @param {TaskPlan} plan @param {'fix' | 'tamper'} planName @param {number} done
 * @returns {PlanStep}
 */
export function nextStep(plan, planName, done) {
  const steps = (planName === 'tamper' ? plan.tamper : undefined) ?? plan.fix;
  return steps[Math.min(done, steps.length - 1)];
}
