import { useState, type ReactNode } from 'react';
import { when } from '../../../src/features/report/format.js';
import { compareWithBaseline, parseBaseline, type Baseline, type BaselineRow, type RunAttempt } from '../data/baseline.js';
import { useSource } from '../data/context.js';
import type { DataSource } from '../data/source.js';
import { useData } from '../data/use-data.js';
import { Await, Section } from './ui.js';

/** Every attempt of a run, paged through the API (200 a page, its maximum). */
async function allAttempts(source: DataSource, runId: string): Promise<RunAttempt[]> {
  const out: RunAttempt[] = [];
  let cursor: string | undefined;
  do {
    const page = await source.listAttempts(runId, { limit: 200, ...(cursor ? { cursor } : {}) });
    out.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

function cell(c: { passes: number; n: number; errors?: number } | null): string {
  if (!c) return '–';
  return `${c.passes}/${c.n}${c.errors ? ` (+${c.errors} err)` : ''}`;
}

const CHANGE_CLASS: Record<string, string> = { 'PASS→FAIL': 'fail', errored: 'fail', 'FAIL→PASS': 'ok' };

function Rows({ baseline, runId }: { baseline: Baseline; runId: string }): ReactNode {
  const source = useSource();
  const attempts = useData(() => allAttempts(source, runId), `baseline|${runId}|${baseline.createdAt}|${baseline.sourceRun}`);
  return (
    <Await data={attempts}>
      {(list) => {
        const { rows, flips, notes } = compareWithBaseline(baseline, list);
        return (
          <>
            <p data-testid="baseline-flips">
              <strong className={flips.passToFail > 0 ? 'fail' : 'ok'}>{flips.passToFail} PASS→FAIL</strong>, {flips.failToPass} FAIL→PASS over {rows.length}{' '}
              task/agent pairs. The gate (<code>crucible gate</code>) gives the paired verdict; this view only lists flips.
            </p>
            {notes.map((n) => (
              <p key={n} className="muted">
                {n}
              </p>
            ))}
            <table className="table" data-testid="baseline-rows">
              <thead>
                <tr>
                  <th>task</th>
                  <th>agent</th>
                  <th>baseline</th>
                  <th>run</th>
                  <th>change</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r: BaselineRow) => (
                  <tr key={`${r.taskId}|${r.agent}`} className={r.change === 'PASS→FAIL' ? 'flip' : undefined}>
                    <td>
                      <code>{r.taskId}</code>
                    </td>
                    <td>{r.agent}</td>
                    <td>{cell(r.baseline)}</td>
                    <td>{cell(r.run)}</td>
                    <td className={CHANGE_CLASS[r.change] ?? 'muted'}>{r.change}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        );
      }}
    </Await>
  );
}

/**
 * A baseline file (`crucible baseline save`) read in the browser, set against one run's attempts
 * per task. The file never leaves the page: the read-only server is not asked to read paths.
 */
export function BaselineCompare({ runId }: { runId: string }): ReactNode {
  const [baseline, setBaseline] = useState<Baseline | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = (file: File | undefined): void => {
    if (!file) return;
    file.text().then(
      (text) => {
        const parsed = parseBaseline(text);
        setBaseline(parsed.ok ? parsed.baseline : null);
        setError(parsed.ok ? null : `${file.name}: ${parsed.error}`);
      },
      (e: unknown) => setError(`${file.name}: ${e instanceof Error ? e.message : String(e)}`),
    );
  };
  return (
    <Section title="Against a baseline" note="Pick a baseline file; run B (or A when only it is chosen) is compared with it task by task.">
      <label className="filters">
        baseline file
        <input type="file" accept=".json,application/json" data-testid="baseline-file" onChange={(e) => load(e.target.files?.[0])} />
      </label>
      {error ? <p className="error">{error}</p> : null}
      {baseline ? (
        <p className="meta">
          Baseline of run <code>{baseline.sourceRun}</code> on <code>{baseline.taskSet}</code>, saved {when(baseline.createdAt)}; run{' '}
          <code>{runId || 'none chosen'}</code>.
        </p>
      ) : null}
      {baseline && runId ? <Rows baseline={baseline} runId={runId} /> : null}
    </Section>
  );
}
