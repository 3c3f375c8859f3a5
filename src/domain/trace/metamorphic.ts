import { BLOCKING } from '../grading/index.js';
import { matcher } from '../evidence/index.js';
import { canonical } from './canonical.js';
import { sealTrace, verifyChain } from './chain.js';
import type { TraceEvent, TraceEventData, TraceHeader } from './events.js';
import { rebuild, type RebuiltAttempt } from './rebuild.js';
import { replayEvents } from './replay.js';

/** What a transformation must do to the outcome: keep the verdict and cause, change them, or make the trace fail verification. */
export type Expectation = 'same' | 'changed' | 'rejected';

export interface MetamorphicResult {
  id: string;
  description: string;
  expected: Expectation;
  /** Absent when the transformation did not apply to this trace (`skipped` says why). */
  seen?: Expectation;
  agree?: boolean;
  skipped?: string;
  detail?: string;
}

export interface MetamorphicReport {
  attemptId: string;
  /** Set when the trace itself does not verify or replay as recorded: nothing else is meaningful then. */
  problem?: string;
  results: MetamorphicResult[];
}

interface Context {
  header: TraceHeader;
  events: TraceEvent[];
  text: string;
  attempt: RebuiltAttempt;
}

type Outcome = { text: string; detail: string } | { skip: string };

interface Transformation {
  id: string;
  description: string;
  expected: Expectation;
  apply(ctx: Context): Outcome;
}

const plain = (events: readonly TraceEvent[]): TraceEvent[] => events.map((e) => ({ type: e.type, data: structuredClone(e.data) }) as TraceEvent);
const reseal = (ctx: Context, events: TraceEvent[]): string => sealTrace({ attemptId: ctx.header.attemptId, runId: ctx.header.runId }, events);
const positions = (events: readonly TraceEvent[], type: TraceEvent['type']): number[] => events.flatMap((e, i) => (e.type === type ? [i] : []));
const graded = (ctx: Context): boolean => ctx.attempt.input !== undefined;

/** Adds a changed file to the trace (a file_change before the diff totals, which count it). */
function addChange(events: TraceEvent[], change: TraceEventData['file_change']): void {
  const at = positions(events, 'diff')[0];
  if (at === undefined) return;
  const totals = events[at]?.data as TraceEventData['diff'];
  totals.filesChanged += 1;
  totals.added += change.added;
  events.splice(at, 0, { type: 'file_change', data: change });
}

/** A concrete path some glob of `patterns` matches (and `accept` allows), to stand for "a file there". */
function pathFor(patterns: readonly string[], accept: (path: string) => boolean = () => true): string | undefined {
  const match = matcher(patterns);
  for (const pattern of patterns) {
    const candidates = [pattern, `crucible-${pattern}`].map((p) =>
      p
        .replace(/\{([^,}]*)[^}]*\}/g, '$1')
        .replace(/\[([^\]])[^\]]*\]/g, '$1')
        .replace(/\*\*\//g, 'crucible/')
        .replace(/\*\*/g, 'crucible-touched')
        .replace(/\*/g, 'crucible-touched')
        .replace(/\?/g, 'x')
        .replace(/^\/+/, ''),
    );
    const found = candidates.find((c) => c !== '' && !c.endsWith('/') && match(c) && accept(c));
    if (found) return found;
  }
  return undefined;
}

function blocking(ctx: Context, id: keyof NonNullable<RebuiltAttempt['input']>['policy']['severities']): boolean {
  const severity = ctx.attempt.input?.policy.severities[id];
  return severity !== undefined && BLOCKING.has(severity);
}

/** Edits trace text lines without re-hashing anything. */
function editLines(text: string, edit: (lines: string[]) => void): string {
  const lines = text.slice(0, -1).split('\n');
  edit(lines);
  return `${lines.join('\n')}\n`;
}

export const TRANSFORMATIONS: readonly Transformation[] = [
  {
    id: 'reorder-commands',
    description: 'swap two commands (the checks judge each command on its own)',
    expected: 'same',
    apply(ctx) {
      if (!graded(ctx)) return { skip: 'the attempt was not graded' };
      const at = positions(ctx.events, 'command');
      if (at.length < 2) return { skip: 'fewer than two commands' };
      const events = [...ctx.events];
      const [a, b] = [at[0] ?? 0, at[at.length - 1] ?? 0];
      [events[a], events[b]] = [events[b] as TraceEvent, events[a] as TraceEvent];
      return { text: reseal(ctx, events), detail: `commands ${a} and ${b} swapped` };
    },
  },
  {
    id: 'reorder-file-changes',
    description: 'reverse the order of the changed files (the checks judge each path on its own)',
    expected: 'same',
    apply(ctx) {
      if (!graded(ctx)) return { skip: 'the attempt was not graded' };
      const at = positions(ctx.events, 'file_change');
      if (at.length < 2) return { skip: 'fewer than two changed files' };
      const events = [...ctx.events];
      const reversed = at.map((i) => ctx.events[i] as TraceEvent).reverse();
      at.forEach((i, k) => (events[i] = reversed[k] as TraceEvent));
      return { text: reseal(ctx, events), detail: `${at.length} file changes reversed` };
    },
  },
  {
    id: 'rename-unrelated-file',
    description: 'rename a changed non-test file within its directory (no finding, policy pattern or test names it)',
    expected: 'same',
    apply(ctx) {
      const input = ctx.attempt.input;
      if (!input) return { skip: 'the attempt was not graded' };
      const p = input.policy;
      const special = matcher([...p.testPaths, ...p.forbiddenPaths, ...p.secrets.paths, ...input.task.tests.testPaths]);
      const allowed = p.allowedPaths.length > 0 ? matcher(p.allowedPaths) : () => true;
      const named = new Set([...(input.content?.findings ?? []).map((f) => f.path), ...(input.tampering?.findings ?? []).map((f) => f.path)]);
      const renamed = (path: string): string => path.replace(/([^/]+)$/, 'renamed-$1');
      const unrelated = (path: string): boolean => !special(path) && !named.has(path);
      const events = plain(ctx.events);
      const target = events.find(
        (e) =>
          e.type === 'file_change' &&
          e.data.kind !== 'deleted' &&
          e.data.oldPath === undefined &&
          unrelated(e.data.path) &&
          unrelated(renamed(e.data.path)) &&
          allowed(e.data.path) === allowed(renamed(e.data.path)),
      );
      if (!target || target.type !== 'file_change') return { skip: 'no changed file is unrelated to tests, findings and policy patterns' };
      const from = target.data.path;
      const to = renamed(from);
      target.data.path = to;
      for (const e of events) if (e.type === 'content_findings') e.data.files = e.data.files.map((f) => (f.path === from ? { ...f, path: to } : f));
      return { text: reseal(ctx, events), detail: `${from} → ${to}` };
    },
  },
  {
    id: 'touch-test-file',
    description: 'the change also edits a test file (the test guard reports it modified)',
    expected: 'changed',
    apply(ctx) {
      const input = ctx.attempt.input;
      if (!input) return { skip: 'the attempt was not graded' };
      if (ctx.attempt.recordedVerdict.cause === 'tampered') return { skip: 'already graded as tampered' };
      if (!blocking(ctx, 'test_tampering')) return { skip: 'test_tampering is not blocking in this policy' };
      const path = pathFor(input.policy.testPaths);
      if (!path) return { skip: 'no test path can be made from policy.testPaths' };
      const events = plain(ctx.events);
      const guard = events.find((e) => e.type === 'tampering');
      if (!guard || guard.type !== 'tampering') return { skip: 'the trace has no test-guard evidence' };
      guard.data.findings.push({ path, kind: 'modified', tracked: true });
      addChange(events, { path, kind: 'modified', binary: false, added: 1, deleted: 1 });
      return { text: reseal(ctx, events), detail: `modified ${path}` };
    },
  },
  {
    id: 'add-forbidden-path',
    description: 'the change also adds a file the policy forbids (forbidden_paths, or outside allowed_paths)',
    expected: 'changed',
    apply(ctx) {
      const input = ctx.attempt.input;
      if (!input) return { skip: 'the attempt was not graded' };
      if (ctx.attempt.recordedVerdict.cause === 'policy_violation' || ctx.attempt.recordedVerdict.cause === 'tampered') {
        return { skip: `already graded as ${ctx.attempt.recordedVerdict.cause}` };
      }
      const p = input.policy;
      const isTest = matcher(p.testPaths);
      let path: string | undefined;
      let why = '';
      if (p.forbiddenPaths.length > 0 && blocking(ctx, 'forbidden_paths')) {
        path = pathFor(p.forbiddenPaths, (c) => !isTest(c));
        why = 'forbidden_paths';
      }
      if (!path && p.allowedPaths.length > 0 && blocking(ctx, 'scope')) {
        const allowed = matcher(p.allowedPaths);
        path = ['crucible-outside-scope.txt', 'crucible/outside-scope.txt'].find((c) => !allowed(c) && !isTest(c));
        why = 'outside allowed_paths';
      }
      if (!path) return { skip: 'the policy forbids no path (blocking forbidden_paths or allowed_paths)' };
      const events = plain(ctx.events);
      addChange(events, { path, kind: 'added', binary: false, added: 1, deleted: 0 });
      return { text: reseal(ctx, events), detail: `added ${path} (${why})` };
    },
  },
  {
    id: 'drop-fail-to-pass',
    description: 'a fail-to-pass test that passed is missing from the verification run',
    expected: 'changed',
    apply(ctx) {
      const input = ctx.attempt.input;
      if (!input) return { skip: 'the attempt was not graded' };
      if (ctx.attempt.recordedVerdict.verdict !== 'PASS') return { skip: 'the attempt did not pass: a missing test cannot change that' };
      const events = plain(ctx.events);
      const run = events.find((e) => e.type === 'test_run' && e.data.run === 'tests');
      if (!run || run.type !== 'test_run') return { skip: 'no verification run' };
      const group = run.data.evidence.failToPass;
      const failing = new Set(group.failing.map((f) => f.id));
      const id = input.task.tests.failToPass.find((t) => !failing.has(t));
      if (id === undefined) return { skip: 'no fail-to-pass test passed' };
      group.passed -= 1;
      group.failing.push({ id, reason: 'missing' });
      const outcome = events.findIndex((e) => e.type === 'test_outcome' && e.data.run === 'tests' && e.data.id === id);
      if (outcome >= 0) {
        events.splice(outcome, 1);
        if (run.data.cases !== undefined) run.data.cases -= 1;
      }
      return { text: reseal(ctx, events), detail: `dropped ${id}` };
    },
  },
  {
    id: 'edit-without-rehash',
    description: 'edit one event (a check result) and keep its hash',
    expected: 'rejected',
    apply(ctx) {
      const at = positions(ctx.events, 'check')[0] ?? ctx.events.length - 1;
      return {
        text: editLines(ctx.text, (lines) => {
          const event = JSON.parse(lines[at + 1] ?? '{}') as { data: Record<string, unknown> };
          event.data.passed = event.data.passed !== true;
          lines[at + 1] = canonical(event);
        }),
        detail: `event ${at} edited`,
      };
    },
  },
  {
    id: 'drop-event',
    description: 'remove one event and keep the rest as they are',
    expected: 'rejected',
    apply(ctx) {
      if (ctx.events.length < 2) return { skip: 'fewer than two events' };
      const at = Math.floor(ctx.events.length / 2);
      return { text: editLines(ctx.text, (lines) => lines.splice(at + 1, 1)), detail: `event ${at} removed` };
    },
  },
  {
    id: 'swap-events',
    description: 'swap two events without re-chaining them',
    expected: 'rejected',
    apply(ctx) {
      if (ctx.events.length < 2) return { skip: 'fewer than two events' };
      return {
        text: editLines(ctx.text, (lines) => {
          [lines[1], lines[2]] = [lines[2] ?? '', lines[1] ?? ''];
        }),
        detail: 'events 0 and 1 swapped',
      };
    },
  },
  {
    id: 'truncate',
    description: 'cut the last event off the file',
    expected: 'rejected',
    apply(ctx) {
      return { text: editLines(ctx.text, (lines) => lines.pop()), detail: 'last line removed' };
    },
  },
  {
    id: 'rechain-without-header',
    description: 'append an event and re-chain it, leaving the header as it was',
    expected: 'rejected',
    apply(ctx) {
      const sealed = reseal(ctx, [...ctx.events, ctx.events[ctx.events.length - 1] as TraceEvent]);
      const first = ctx.text.slice(0, ctx.text.indexOf('\n'));
      return { text: `${first}${sealed.slice(sealed.indexOf('\n'))}`, detail: 'one event appended, header kept' };
    },
  },
];

/**
 * Applies every transformation to a copy of the trace (in memory) and reports, for each, what it
 * must do to the outcome and what it did: verify, then replay through the registered checks and
 * grade(), compared with the untouched trace's outcome.
 */
export function runMetamorphic(text: string): MetamorphicReport {
  const chain = verifyChain(text);
  if (!chain.ok) return { attemptId: '?', problem: `the trace does not verify (line ${chain.line}: ${chain.reason})`, results: [] };
  const attemptId = chain.header.attemptId;
  const original = replayEvents(attemptId, chain.events);
  if (!original.match || !original.replayed)
    return { attemptId, problem: `the trace does not replay as recorded: ${original.problem ?? 'unknown'}`, results: [] };
  const ctx: Context = { header: chain.header, events: plain(chain.events), text, attempt: rebuild(chain.events) };
  const before = original.replayed;
  const results = TRANSFORMATIONS.map((t): MetamorphicResult => {
    const base = { id: t.id, description: t.description, expected: t.expected };
    const outcome = t.apply(ctx);
    if ('skip' in outcome) return { ...base, skipped: outcome.skip };
    const seen = observe(outcome.text, before);
    return { ...base, seen: seen.seen, agree: seen.seen === t.expected, detail: `${outcome.detail}: ${seen.detail}` };
  });
  return { attemptId, results };
}

function observe(text: string, before: { verdict: string; cause: string }): { seen: Expectation; detail: string } {
  const chain = verifyChain(text);
  if (!chain.ok) return { seen: 'rejected', detail: `verify fails at line ${chain.line} (${chain.reason})` };
  const replay = replayEvents(chain.header.attemptId, chain.events);
  if (!replay.replayed) return { seen: 'rejected', detail: replay.problem ?? 'could not be replayed' };
  const now = `${replay.replayed.verdict} ${replay.replayed.cause}`;
  const same = replay.replayed.verdict === before.verdict && replay.replayed.cause === before.cause;
  return { seen: same ? 'same' : 'changed', detail: same ? `still ${now}` : `${before.verdict} ${before.cause} → ${now}` };
}
