export { applyJsonPatch, getPointer, JsonPatchError, parsePointer } from './apply-json-patch.ts';
export { caseVersion } from './case-version.ts';
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
