/**
 * The catalogue's split into test files (helpers/catalogue.ts) leaves no attack out: every class
 * without a file of its own is in exactly one part, and each part has its test file.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ATTACKS } from '../../src/domain/redteam/index.js';
import { CATALOGUE_ATTACKS, CATALOGUE_PARTS, OWN_FILE_CLASSES } from './helpers/catalogue.js';

describe('the attack catalogue split by class', () => {
  it('puts every class the catalogue files run in exactly one part', () => {
    const classes = [...new Set(CATALOGUE_ATTACKS.map((a) => a.class))].sort();
    const inParts = Object.values(CATALOGUE_PARTS).flat();
    expect([...inParts].sort()).toEqual(classes);
  });

  it('leaves out only the classes with a file of their own, and each has it', () => {
    const outside = [...new Set(ATTACKS.filter((a) => a.suite === undefined && !CATALOGUE_ATTACKS.includes(a)).map((a) => a.class))];
    expect(outside.sort()).toEqual([...OWN_FILE_CLASSES].sort());
    for (const cls of OWN_FILE_CLASSES) expect(existsSync(`test/redteam/${cls}-attacks.test.ts`), cls).toBe(true);
  });

  it('has a test file for every part', () => {
    const missing = Object.keys(CATALOGUE_PARTS).filter((part) => !existsSync(`test/redteam/attacks-${part}.test.ts`));
    expect(missing).toEqual([]);
  });
});
