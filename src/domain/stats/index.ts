/**
 * Public entry of the statistics module: pure functions, no I/O. The estimators below depend on nothing
 * else in Crucible; aggregateRun turns attempts (src/core/types) into the run-statistics contract.
 */
export { wilson } from './wilson.js';
export { newcombeDifference, type Counts } from './newcombe.js';
export { clusteredBootstrap, bootstrapClusterMean, type BootstrapOptions, type BootstrapMean, type Cluster, type PooledInterval } from './bootstrap.js';
export { passAtK, passHatK, meanOverTasks, perTask, type TaskCounts } from './pass-k.js';
export { describe } from './describe.js';
export { pairedComparison, tasksToSeparate, type PairedOptions, type TaskOutcome } from './paired.js';
export type { Description, Interval, PairedComparison, PairedMethod, PairedVerdict } from '../../core/types/index.js';
export { normalQuantile, twoSidedZ } from './normal.js';
export { quantileSorted } from './quantile.js';
export { mulberry32, type Random } from './prng.js';
export { aggregateRun, taskSetsOfIds, type AggregateOptions } from './run-stats.js';
export { sequentialSignTest, type SequentialSignTest } from './sequential-sign.js';
export { bettingConfidenceSequence, type BettingOptions, type ConfidenceSequence } from './betting-cs.js';
export {
  adaptiveState,
  nextTrials,
  type AdaptiveState,
  type AdaptiveTarget,
  type AgentState,
  type ComparisonState,
  type TrialRecord,
  type TrialStep,
} from './adaptive-design.js';
export { gateSequence, gateFutile, type GateTarget, type GatedAgent, type GateSequence, type GateDecision } from './gate-sequential.js';
export { simulateAdaptiveGate, simulateFixedGate, gateShouldFail, type GateScenario, type GateDesignOutcome } from './gate-simulation.js';
export { simulateAdaptive, simulateFixed, type ComparisonOutcome, type DesignOutcome, type Scenario, type SimulationOptions } from './design-simulation.js';
export { planDesigns, type DesignPlan, type PlanQuestion } from './design-planning.js';
export { costPerSolve, costFrontier, costRowsOf, type CostPerSolve, type FrontierEntry, type FrontierPoint, type TaskCost } from './cost-per-solve.js';
