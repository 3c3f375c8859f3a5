/**
 * The red team's lying attacks (code under test that lies from inside the test process) and policy
 * attacks on the bundled examples (bwrap, through runAttempt): one part of the catalogue
 * (helpers/catalogue.ts), so the parts overlap. docs/redteam.md.
 */
import { describe } from 'vitest';
import { catalogueRun, itEndsAsTheCatalogueSays } from './helpers/catalogue.js';

const run = catalogueRun('lying-policy');

describe('the attack catalogue on the bundled examples (bwrap): lying, policy', () => {
  itEndsAsTheCatalogueSays(run);
});
