// The view model, shared with the server and the report writers (type-only: nothing from src/ is bundled but format.ts).
export type {
  AttemptArtifacts,
  AttemptListItem,
  AttemptQuery,
  AttemptView,
  CellView,
  CompareView,
  CommandView,
  HeldOutCard,
  Page,
  ReportData,
  RunInfo,
  RunListItem,
  RunView,
  TrajectoryEvent,
  TrendPointView,
  TrendView,
  BoundedText,
} from '../../../src/features/report/view.js';
export type { EvaluationKind, EvaluationListItem } from '../../../src/infra/store/evaluations.js';
export type { DiagnosticListItem } from '../../../src/features/diagnostics/list-types.js';
export type { RunStats, AgentStats, CellStats, Measured } from '../../../src/core/types/index.js';
export type { CellDelta } from '../../../src/engine/compare.js';
export type { AttemptResult, CheckResult, Cause, Verdict, TestCaseResult, TestRunEvidence, TestGroupOutcome } from '../../../src/core/types/index.js';
