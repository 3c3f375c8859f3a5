/** The verdict (judge(): the one place one is made), score and cause; task validity for `crucible validate`. */
export { judge, neverRanReason, verifiedOutcome, type Judgement, type Outcome, type OutcomeKind } from './judge.js';
export { grade, type Grade, type GradeInput } from './verdict.js';
export { score, SEVERITY_POINTS, BLOCKING } from './score.js';
export { judgeTaskValidity, failToPassAlreadyPassing, type TaskValidity, type ValidityStatus } from './validity.js';
export { resourceLimitOf } from './limit.js';
export { providerFailure, PROVIDER_FAILURE_THRESHOLD } from './provider-failure.js';
export { judgeAttack, judgeTaskAdversarial, type AttackReport, type TaskAdversarial } from './validity.js';
