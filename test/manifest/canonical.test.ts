import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, manifestText, sha256Hex } from '../../src/domain/manifest/index.js';

describe('canonical JSON', () => {
  it('sorts keys at every depth, whatever order they were inserted in', () => {
    const a = { b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } };
    const b = { a: { c: 'x', d: [3, { y: 2, z: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson(b)).toBe(canonicalJson(a));
    expect(manifestText(b)).toBe(manifestText(a));
  });

  it('sorts by code point, not by locale (uppercase before lowercase, é after z)', () => {
    expect(canonicalJson({ é: 1, z: 2, Z: 3, a: 4 })).toBe('{"Z":3,"a":4,"z":2,"é":1}');
  });

  it('keeps array order, drops undefined members and writes undefined array items as null', () => {
    expect(canonicalJson({ list: [2, 1, undefined], gone: undefined, kept: null })).toBe('{"kept":null,"list":[2,1,null]}');
  });

  it('refuses numbers JSON cannot carry instead of writing null', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(/NaN/);
    expect(() => canonicalJson({ n: Number.POSITIVE_INFINITY })).toThrow(/Infinity/);
  });

  it('writes manifests indented, with one trailing newline, and hashes bytes as SHA-256', () => {
    expect(manifestText({ b: 1, a: 2 })).toBe('{\n  "a": 2,\n  "b": 1\n}\n');
    expect(sha256Hex('abc')).toBe(createHash('sha256').update('abc').digest('hex'));
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
