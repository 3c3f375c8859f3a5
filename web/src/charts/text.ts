/*
 * Text measured as the browser draws it, so a chart can size its margins to its labels instead of
 * cutting them at a guessed number of characters.
 */

/** Font size and weight of a chart's labels (styles.css: .axis-label, .point-label). */
export const LABEL_SIZE = 11;
export const LINE_HEIGHT = 13;
export const BOLD = 600;
/** Average advance of a character per pixel of font size, for a page without a canvas. */
const FALLBACK_EM = 0.62;
/** Room kept around a measured label: SVG text and canvas text differ by a pixel or two. */
const SLACK = 1.04;

/** What is used of a browser page: typed here so that the module also loads where there is none. */
interface Measure {
  font: string;
  measureText(text: string): { width: number };
}
interface Page {
  document?: { createElement(tag: 'canvas'): { getContext(kind: '2d'): Measure | null }; documentElement: object };
  getComputedStyle?: (element: object) => { fontFamily: string };
}

let context: Measure | null | undefined;

/** Width in pixels of `text` in the page's font at `size` and `weight`. */
export function textWidth(text: string, size = LABEL_SIZE, weight = 400): number {
  const page = globalThis as Page;
  if (context === undefined) context = page.document?.createElement('canvas').getContext('2d') ?? null;
  if (!context || !page.document) return text.length * size * FALLBACK_EM * SLACK;
  const family = page.getComputedStyle?.(page.document.documentElement).fontFamily || 'sans-serif';
  context.font = `${weight} ${size}px ${family}`;
  return context.measureText(text).width * SLACK + 1;
}

/**
 * `text` as lines no wider than `max`: broken after a separator (`:`, `-`, `/`, `.`, `_`, space)
 * where one fits, else between characters. Every character is kept: a long name wraps, never cut.
 */
export function wrapText(text: string, max: number, size = LABEL_SIZE, weight = 400): string[] {
  if (textWidth(text, size, weight) <= max) return [text];
  const pieces = text.match(/[^:\-/._\s]*[:\-/._\s]?/g)?.filter((p) => p !== '') ?? [text];
  const lines: string[] = [];
  let line = '';
  const push = (piece: string): void => {
    if (line === '' || textWidth(line + piece, size, weight) <= max) {
      line += piece;
      return;
    }
    lines.push(line);
    line = piece;
  };
  for (const piece of pieces) {
    if (textWidth(piece, size, weight) <= max) push(piece);
    else for (const ch of piece) push(ch);
  }
  if (line !== '') lines.push(line);
  return lines;
}

/** The widest of `texts` in pixels. */
export function widest(texts: readonly string[], size = LABEL_SIZE, weight = 400): number {
  return Math.max(0, ...texts.map((t) => textWidth(t, size, weight)));
}
