import type { ReactNode } from 'react';
import { interval, pct } from '../../../src/features/report/format.js';
import type { HeldOutCard, RunStats } from '../data/types.js';
import { IntervalBar } from './ui.js';

/** Per agent: pass rate with n and interval, and how reliable it is across trials (pass^k). */
export function ReliabilityCards({ stats }: { stats: RunStats }): ReactNode {
  return (
    <div className="cards">
      {stats.agents.map((a) => (
        <article className="card" key={a.agent} data-card="reliability">
          <h3>{a.agent}</h3>
          <p className="big">{a.passRate ? pct(a.passRate.rate) : '–'}</p>
          <IntervalBar rate={a.passRate?.rate ?? null} low={a.passRate?.low ?? null} high={a.passRate?.high ?? null} width={160} />
          <p className="muted">
            {a.passRate
              ? `${interval(a.passRate.low, a.passRate.high)} · n=${a.passRate.n} over ${a.passRate.tasks} task${a.passRate.tasks === 1 ? '' : 's'}`
              : 'nothing scored'}
          </p>
          <dl>
            {a.passK.map((p) => (
              <div key={p.k}>
                <dt>
                  pass@{p.k} / pass^{p.k}
                </dt>
                <dd title={p.estimable ? undefined : p.reason}>{p.estimable ? `${pct(p.passAtK.value)} / ${pct(p.passHatK.value)}` : 'n/a'}</dd>
              </div>
            ))}
            <div>
              <dt>harness errors</dt>
              <dd>
                {a.harnessErrors.count} of {a.harnessErrors.attempts}
              </dd>
            </div>
            {a.providerErrors && a.providerErrors.count > 0 ? (
              <div>
                <dt>of which provider errors</dt>
                <dd>
                  {a.providerErrors.count} (
                  {Object.entries(a.providerErrors.byProvider)
                    .map(([p, n]) => `${p} ${n}`)
                    .join(', ')}
                  )
                </dd>
              </div>
            ) : null}
          </dl>
        </article>
      ))}
    </div>
  );
}

export function HeldOutCards({ cards }: { cards: HeldOutCard[] }): ReactNode {
  if (cards.length === 0) return <p className="muted">No attempt in this run had held-out tests.</p>;
  return (
    <div className="cards">
      {cards.map((c) => (
        <article className="card" key={c.agent} data-card="held-out">
          <h3>{c.agent}</h3>
          <p className="big">{pct(c.withHeldOut ? c.heldOutPassed / c.withHeldOut : null)}</p>
          <p className="muted">
            passed every held-out test in {c.heldOutPassed} of {c.withHeldOut} attempts
          </p>
          <p className={c.passedPublicFailedHeldOut > 0 ? 'warn' : 'muted'}>{c.passedPublicFailedHeldOut} passed the public tests but failed held-out ones</p>
        </article>
      ))}
    </div>
  );
}
