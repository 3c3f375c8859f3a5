import type { ReactNode } from 'react';

/**
 * Every series of a chart by its full name and colour, as HTML that wraps with the page: the key a
 * reader can always rely on, whether or not a point's label found room inside the chart.
 */
export function SeriesLegend({ series }: { series: ReadonlyArray<{ name: string; colour: string }> }): ReactNode {
  return (
    <figcaption className="legend series-legend" data-legend="series">
      {series.map((s) => (
        <span key={s.name}>
          <i style={{ background: s.colour }} />
          {s.name}
        </span>
      ))}
    </figcaption>
  );
}
