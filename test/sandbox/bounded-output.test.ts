import { describe, expect, it } from 'vitest';
import { BoundedOutput, completeUtf8Length } from '../../src/infra/sandbox/bounded-output.js';

describe('BoundedOutput', () => {
  it('keeps everything under the limit, untruncated', () => {
    const output = new BoundedOutput(10);
    output.append(Buffer.from('abc'));
    output.append(Buffer.from('def'));
    expect(output.text()).toBe('abcdef');
    expect(output.truncated).toBe(false);
  });

  it('keeps the head across chunks and flags what it dropped', () => {
    const output = new BoundedOutput(5);
    output.append(Buffer.from('abc'));
    output.append(Buffer.from('defgh'));
    output.append(Buffer.from('ijk'));
    expect(output.text()).toBe('abcde');
    expect(output.truncated).toBe(true);
  });

  it('is not truncated by output that exactly fills it', () => {
    const output = new BoundedOutput(3);
    output.append(Buffer.from('abc'));
    expect(output.truncated).toBe(false);
    output.append(Buffer.from('d'));
    expect(output.truncated).toBe(true);
  });

  it('drops a multi-byte character cut by the limit instead of mangling it', () => {
    const output = new BoundedOutput(7);
    output.append(Buffer.from('ab€€')); // 2 + 3 + 3 bytes
    expect(output.text()).toBe('ab€');
  });

  it('decodes invalid bytes the child wrote as replacement characters', () => {
    const output = new BoundedOutput(100);
    output.append(Buffer.from([0x61, 0xff, 0x62]));
    expect(output.text()).toBe('a\uFFFDb');
  });
});

describe('completeUtf8Length', () => {
  const bytes = (text: string, cut: number): Uint8Array => Buffer.from(text).subarray(0, cut);

  it.each([
    ['ascii', 'abc', 3, 3],
    ['whole 2-byte char', 'é', 2, 2],
    ['half a 2-byte char', 'aé', 2, 1],
    ['two thirds of a 3-byte char', 'a€', 3, 1],
    ['three quarters of a 4-byte char', 'a😀', 4, 1],
    ['whole 4-byte char', 'a😀', 5, 5],
    ['empty', '', 0, 0],
  ])('%s', (_name, text, cut, expected) => {
    expect(completeUtf8Length(bytes(text, cut))).toBe(expected);
  });
});
