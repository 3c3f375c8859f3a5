import { describe, expect, it } from 'vitest';
import { placeLabels, type Box } from '../../web/src/charts/place-labels.js';
import { dodge } from '../../web/src/charts/dodge.js';
import { textWidth, wrapText } from '../../web/src/charts/text.js';

const intersect = (a: Box, b: Box): boolean => Math.min(a.right, b.right) > Math.max(a.left, b.left) && Math.min(a.bottom, b.bottom) > Math.max(a.top, b.top);

describe('placing point labels', () => {
  const bounds = { left: 0, top: 0, right: 400, bottom: 200 };

  it('moves the second of two coinciding points’ labels clear of the first, and of both points', () => {
    const points = [
      { id: 'claude-code', x: 200, y: 100, r: 5, width: 70, height: 14 },
      { id: 'codex', x: 204, y: 100, r: 5, width: 40, height: 14 },
    ];
    const placed = placeLabels(points, bounds, 11);
    const a = placed.get('claude-code');
    const b = placed.get('codex');
    expect(a).toBeTruthy();
    expect(b).toBeTruthy();
    expect(intersect(a!.box, b!.box)).toBe(false);
    for (const p of points)
      for (const box of [a!.box, b!.box]) expect(intersect(box, { left: p.x - p.r, top: p.y - p.r, right: p.x + p.r, bottom: p.y + p.r })).toBe(false);
  });

  it('keeps every label inside the bounds, and leaves out one that has no free place', () => {
    // Ten points on one spot in a strip one label high: only the sides are free.
    const points = Array.from({ length: 10 }, (_, i) => ({ id: `agent-${i}`, x: 200, y: 7, r: 5, width: 60, height: 14 }));
    const placed = placeLabels(points, { left: 0, top: 0, right: 400, bottom: 14 }, 11);
    const boxes = [...placed.values()].filter((p) => p !== null).map((p) => p.box);
    expect(boxes).toHaveLength(2);
    expect(intersect(boxes[0]!, boxes[1]!)).toBe(false);
    for (const box of boxes) expect(box.left >= 0 && box.right <= 400 && box.top >= 0 && box.bottom <= 14).toBe(true);
  });

  it('keeps labels off the obstacles it is given', () => {
    const line = { left: 219, right: 221, top: 0, bottom: 200 };
    const placed = placeLabels([{ id: 'a', x: 200, y: 100, r: 5, width: 60, height: 14 }], bounds, 11, [line]);
    expect(intersect(placed.get('a')!.box, line)).toBe(false);
  });
});

describe('dodging end labels', () => {
  it('spreads labels that want the same height, keeps apart ones that do not, within the bounds', () => {
    const centres = dodge(
      [
        { y: 100, h: 13 },
        { y: 100, h: 13 },
        { y: 10, h: 26 },
      ],
      0,
      200,
    );
    expect(centres).not.toBeNull();
    const [a, b, c] = centres!;
    expect(Math.abs(a! - b!)).toBeGreaterThanOrEqual(13);
    expect(c).toBeGreaterThanOrEqual(13);
    expect(Math.max(a!, b!)).toBeLessThanOrEqual(200 - 6.5);
  });

  it('pushes labels at the bottom edge up, and gives up when they cannot all fit', () => {
    const centres = dodge(
      [
        { y: 200, h: 13 },
        { y: 200, h: 13 },
      ],
      0,
      200,
    );
    expect(Math.max(...centres!)).toBeLessThanOrEqual(193.5);
    expect(
      dodge(
        Array.from({ length: 20 }, () => ({ y: 50, h: 13 })),
        0,
        100,
      ),
    ).toBeNull();
  });
});

describe('wrapping a long name', () => {
  it('keeps a name that fits whole, and wraps a longer one after its separators without losing a character', () => {
    expect(wrapText('codex', 200)).toEqual(['codex']);
    const name = 'openai-compatible:qwen3-coder-plus';
    const lines = wrapText(name, textWidth('openai-compatible:') + 1);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join('')).toBe(name);
    expect(lines[0]).toBe('openai-compatible:');
  });

  it('breaks between characters a piece with no separator that is wider than the room', () => {
    const name = 'x'.repeat(60);
    const lines = wrapText(name, textWidth('x'.repeat(10)));
    expect(lines.join('')).toBe(name);
    for (const l of lines) expect(textWidth(l)).toBeLessThanOrEqual(textWidth('x'.repeat(10)));
  });
});
