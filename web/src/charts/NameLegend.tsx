import type { ReactNode } from 'react';
import { cutLabels, distinctLabels } from '../../../src/core/format/index.js';

/** Axis labels for agents: unique however long the names (src/core/format/labels.ts). */
export function agentLabels(names: readonly string[], max: number): Map<string, string> {
  return distinctLabels(names, max);
}

/** Spells out every name a chart shows shortened, so two models are never told apart by a tooltip alone. */
export function NameLegend({ labels }: { labels: ReadonlyMap<string, string> }): ReactNode {
  const cut = cutLabels(labels);
  if (cut.length === 0) return null;
  return (
    <p className="name-legend muted" data-legend="names">
      {cut.map((c) => (
        <span key={c.name}>
          <b>{c.label}</b> {c.name}
        </span>
      ))}
    </p>
  );
}
