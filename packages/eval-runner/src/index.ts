export { caseVersion } from './case-version.ts';
export { type CollectEvidenceInput, type CollectedEvidence, collectEvidence } from './collect-evidence.ts';
export { type DomSweepEvidence, type RowSource, type RowsRead, SWEEP_VIEW_ROWS, type SweptArtifact, type SweptWidget, sweepPublished } from './dom-sweep.ts';
export type { Evidence, ProbeEvidence, ProbeIssueEvidence, SeedEvidence } from './evidence.ts';
export {
  type Assertion,
  type AssertionKind,
  AssertionSchema,
  BLUEPRINT_FILE,
  type Blueprint,
  BlueprintSchema,
  CASE_FILE,
  type CaseFile,
  CaseFileSchema,
  type CaseProblem,
  type DefectSet,
  DefectSetSchema,
  type ExpectedIssue,
  ExpectedIssueSchema,
  type GoldenCase,
  GoldenCaseError,
  loadGoldenCase,
  loadGoldenCases,
  parseGoldenCase,
  REPAIRERS,
} from './golden-case.ts';
export { type AssertionResult, gradeAssertions } from './grade.ts';
export { matchRole, words } from './match-role.ts';
export {
  type AppSummary,
  type DashboardSummary,
  emptyApp,
  type NavigationSummary,
  type ObjectSummary,
  summarizeGraph,
  type ViewSummary,
} from './summarize-graph.ts';
