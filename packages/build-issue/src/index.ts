export {
  type ArtifactRef,
  ArtifactRefSchema,
  type BuildIssue,
  BuildIssueSchema,
  FIX_SAFETIES,
  type FixSafety,
  type JsonPatchOp,
  JsonPatchOpSchema,
  LAYERS,
  type Layer,
  SEVERITIES,
  type Severity,
} from './build-issue.ts';
export { CATALOGUE, type CatalogueEntry, IMPACT_SEVERITY, type Impact, type IssueCode, isCatalogueCode } from './catalogue.ts';
export { fingerprint } from './fingerprint.ts';
export { formatPretty, type PrettyOptions, summaryLine } from './format-pretty.ts';
export { formatSarif, type LocateArtifact, type SarifOptions } from './format-sarif.ts';
export { type IssueInput, MAX_NAME_LENGTH, makeIssue } from './make-issue.ts';
export { compareIssues, sortIssues } from './sort-issues.ts';
