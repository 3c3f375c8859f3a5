/**
 * Hash-chained traces of attempts (trace.jsonl): written when an attempt is recorded, verified
 * byte for byte, replayed offline through the registered checks and grade(), and transformed
 * metamorphically to test the grader. docs/evidence.md#traces describes the format.
 */
export {
  TRACE_FILE,
  TRACE_EVENT_TYPES,
  TRACE_VERSION,
  type TraceHeader,
  type TraceEvent,
  type ChainedEvent,
  type TraceEnd,
  type TraceOutcome,
} from './events.js';
export { sealTrace, verifyChain, genesis, eventHash, type ChainCheck } from './chain.js';
export { canonical, sha256 } from './canonical.js';
export { writeTrace, traceEvents, type Judged, type TraceEvidence } from './record.js';
export { rebuild, TraceShapeError, type RebuiltAttempt } from './rebuild.js';
export {
  replayEvents,
  replayAttemptDir,
  verifyAttemptTrace,
  readTrace,
  runAttemptDirs,
  TraceFileError,
  type AttemptReplay,
  type AttemptVerification,
  type CheckComparison,
} from './replay.js';
export { runMetamorphic, TRANSFORMATIONS, type MetamorphicReport, type MetamorphicResult, type Expectation } from './metamorphic.js';
export { locateTrace, type TraceTarget } from './locate.js';
