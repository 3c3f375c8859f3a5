import type { ReactNode } from 'react';
import { BOLD, LABEL_SIZE, LINE_HEIGHT, widest, wrapText } from './text.js';

/** An SVG label of one or more lines; `y` is the vertical centre of the block. */
export function Label({
  lines,
  x,
  y,
  anchor = 'start',
  className,
  fill,
  title,
}: {
  lines: readonly string[];
  x: number;
  y: number;
  anchor?: 'start' | 'middle' | 'end';
  className: string;
  fill?: string;
  title?: string;
}): ReactNode {
  const first = y - ((lines.length - 1) * LINE_HEIGHT) / 2 + LABEL_SIZE * 0.35;
  return (
    <text x={x} y={first} textAnchor={anchor} className={className} fill={fill}>
      {lines.map((line, i) => (
        <tspan key={i} x={x} dy={i === 0 ? 0 : LINE_HEIGHT}>
          {line}
        </tspan>
      ))}
      {title !== undefined ? <title>{title}</title> : null}
    </text>
  );
}

/**
 * Labels for a chart's rows (one per agent), in bold: the column is as wide as the widest name
 * up to `max` pixels, and a longer name wraps onto more lines there rather than being cut.
 */
export function rowLabels(names: readonly string[], max: number): { width: number; lines: Map<string, string[]> } {
  const width = Math.min(Math.ceil(widest(names, LABEL_SIZE, BOLD)), max);
  return { width, lines: new Map(names.map((n) => [n, wrapText(n, width, LABEL_SIZE, BOLD)])) };
}

/** A row tall enough for its label's lines, and never less than `min`. */
export function rowHeight(lines: readonly string[] | undefined, min: number): number {
  return Math.max(min, (lines?.length ?? 1) * LINE_HEIGHT + 10);
}

/** Top of each row and the total height, rows stacked in order from `top`. */
export function stackRows(heights: readonly number[], top: number): { tops: number[]; bottom: number } {
  const tops: number[] = [];
  let y = top;
  for (const h of heights) {
    tops.push(y);
    y += h;
  }
  return { tops, bottom: y };
}
