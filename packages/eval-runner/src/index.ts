export type { AttemptCard, AttemptRound, AttemptSession, IssueState, RoundIssue } from './attempt-session.ts';
export { type AttemptTranscript, noTranscripts, type TranscriptReader, type TranscriptTurn } from './attempt-transcript.ts';
export {
  type Assertion,
  type AssertionKind,
  AssertionSchema,
  type AttemptBudget,
  AttemptBudgetSchema,
  attemptBounds,
  type Blueprint,
  BlueprintSchema,
  type CaseFile,
  CaseFileSchema,
  type CaseOrigin,
  type DefectSet,
  DefectSetSchema,
  type ExpectedIssue,
  ExpectedIssueSchema,
  OriginSchema,
  REPAIRERS,
} from './case-file.ts';
export { caseFromSession, type SessionRecord } from './case-from-session.ts';
export { caseVersion } from './case-version.ts';
export { type CollectEvidenceInput, type CollectedEvidence, collectEvidence } from './collect-evidence.ts';
export { type BatchShape, type Comparison, compareBatches, type EntryChange, type EntryRef } from './compare-batches.ts';
export {
  type DomSweepEvidence,
  type RowSource,
  type RowsRead,
  SWEEP_VIEW_ROWS,
  type SweptArtifact,
  type SweptWidget,
  sweepPublished,
  type WidgetOracle,
} from './dom-sweep.ts';
export {
  type AgentReview,
  CLEAN_VARIANT,
  DEFAULT_PROMPT,
  type EvalAgent,
  type EvalAgentInput,
  type EvalAgentResult,
  type EvalCase,
  type EvalUsage,
  NO_USAGE,
  RateLimitedError,
} from './eval-agent.ts';
export { EVAL_AGENTS, evalAgentNamed } from './eval-agents.ts';
export { type EvalSubject, subjectId, subjectOf } from './eval-subject.ts';
export type { Evidence, IssueEvidence, ProbeEvidence, ProbeIssueEvidence, ReviewEvidence, RubricVerdict, SeedEvidence } from './evidence.ts';
export { formatAttempt } from './format-attempt.ts';
export { duration, entryStatus, formatEvalSummary, formatProgress, percent, type SummaryInput } from './format-eval-summary.ts';
export { formatJunit } from './format-junit.ts';
export {
  BLUEPRINT_FILE,
  CASE_FILE,
  type CaseProblem,
  type GoldenCase,
  GoldenCaseError,
  loadGoldenCase,
  loadGoldenCases,
  parseGoldenCase,
} from './golden-case.ts';
export { type AssertionOutcome, type AssertionResult, gradeAssertions } from './grade.ts';
export { type AttemptFacts, type AttemptVerdict, EVAL_STATUSES, type EvalStatus, gradeAttempt } from './grade-attempt.ts';
export { matchRole, words } from './match-role.ts';
export { passAtK, passHatK } from './pass-at-k.ts';
export { passRateChart, type RatePoint } from './pass-rate-chart.ts';
export {
  type AttemptKey,
  DEFECT_FILTERS,
  type DefectFilter,
  EVAL_TENANT_PREFIX,
  evalCaseOf,
  type PlanEntry,
  planEntries,
  plannedAttempts,
} from './plan-attempts.ts';
export { attemptPageName, renderAttemptPage } from './render-attempt-page.ts';
export { type EvalReportInput, renderEvalReport } from './render-eval-report.ts';
export type { RubricInput, RubricJudge } from './rubric-judge.ts';
export { type AdaptivePoolOptions, type BackoffOptions, type PoolEvent, runAdaptivePool } from './run-adaptive-pool.ts';
export { type RunAttemptInput, runAttempt } from './run-attempt.ts';
export {
  type AttemptFilter,
  type AttemptView,
  compareWithBaseline,
  loadAttemptViews,
  loadEvalReport,
  summarizeStoredBatch,
} from './run-batch-report.ts';
export { blueprintAgent } from './run-blueprint-agent.ts';
export { type Cassette, type CassetteEntry, CassetteError, type CassetteSession, type FetchLike, openCassette } from './run-cassette.ts';
export {
  ATTEMPT_QUEUE,
  DEFAULT_QUEUE_SCHEMA,
  type EnqueueInput,
  type EvalQueue,
  type EvalWorker,
  enqueueBatch,
  NIGHTLY_QUEUE,
  type NightlyRequest,
  nightlySchedule,
  openEvalQueue,
  type RunWorkerInput,
  runEvalWorker,
  scheduleNightly,
  unscheduleNightly,
  type WorkerEvent,
  waitForBatch,
} from './run-eval-queue.ts';
export {
  type AttemptTry,
  type BatchMeta,
  type EvalBatch,
  getBatch,
  listAttempts,
  listBatches,
  type StoredAttempt,
  sweepEvalTenants,
} from './run-eval-store.ts';
export {
  type EvalProgress,
  EvalRunError,
  type EvalRunResult,
  type RunEvalsInput,
  runEvals,
  workerName,
} from './run-evals.ts';
export { type AgentBuilder, openaiAgent } from './run-openai-agent.ts';
export { type ChatCompletionCall, type OpenaiJudgeOptions, openaiJudge } from './run-openai-judge.ts';
export { type RecordCaseInput, type RecordedCase, recordCase } from './run-record-case.ts';
export { sessionTranscripts } from './run-session-transcript.ts';
export { stackDocument } from './stack-document.ts';
export {
  type AttemptOutcome,
  type BatchSummary,
  type CaseSpend,
  type Counts,
  type EntrySummary,
  passRate,
  type Spend,
  type SubjectSummary,
  summarizeBatch,
} from './summarize-batch.ts';
export {
  type AppSummary,
  type DashboardSummary,
  emptyApp,
  type NavigationSummary,
  type ObjectSummary,
  summarizeGraph,
  type ViewSummary,
} from './summarize-graph.ts';
export type { WidgetNumbers } from './widget-numbers.ts';
