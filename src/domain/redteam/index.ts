/**
 * The red team (docs/redteam.md): scripted attack agents, each with its class, the tasks it applies
 * to and the outcome the harness must give it, and the gateway attacks. They are agents, but not the
 * registry's: `crucible validate --adversarial` and the red-team tests run them, and a run finds
 * one by name through `resolveRunAgent`.
 */
export { ATTACKS, attacksFor, expectedFor, findAttack, type Attack, type AttackClass, type ExpectedOutcome } from './catalogue.js';
export { resolveRunAgent } from './resolve.js';
