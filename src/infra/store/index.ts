// The history store: the only module that touches SQL. Everything public is exported here.
export { openHistory } from './history.js';
export type { History, HistoryReader, OpenOptions } from './history.js';
export type { RunVersion } from './read-runs.js';
export type { EvaluationFilter, EvaluationKind, EvaluationListItem, EvaluationRecord } from './evaluations.js';
export { HistoryError, HistoryVersionError, AmbiguousIdError } from './errors.js';
export { SCHEMA_VERSION } from './migrations.js';
export { MAX_PAGE_SIZE } from './page.js';
export { parseSince } from './time.js';
export type { Page, PageRequest, RunFilter, AttemptFilter, TrendQuery, Since } from './queries.js';
export type {
  RunMeta,
  HistoryRunKind,
  RunFinish,
  AttemptExtra,
  AttemptEntry,
  RunRow,
  RunDetail,
  AttemptRow,
  AttemptDetail,
  UsageRow,
  TestCount,
  VerdictCounts,
  ResolvedId,
  Tally,
  TrendPoint,
  CellRow,
  HeldOutTally,
} from './rows.js';
