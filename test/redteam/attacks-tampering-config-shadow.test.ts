/**
 * The red team's test-tampering, runner-config and module-shadow attacks on the bundled examples
 * (bwrap, through runAttempt): one part of the catalogue (helpers/catalogue.ts), so the parts
 * overlap. docs/redteam.md.
 */
import { describe } from 'vitest';
import { catalogueRun, itEndsAsTheCatalogueSays } from './helpers/catalogue.js';

const run = catalogueRun('tampering-config-shadow');

describe('the attack catalogue on the bundled examples (bwrap): test tampering, runner config, module shadowing', () => {
  itEndsAsTheCatalogueSays(run);
});
