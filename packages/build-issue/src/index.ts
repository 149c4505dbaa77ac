export {
  ArtifactRefSchema,
  BuildIssueSchema,
  JsonPatchOpSchema,
  LAYERS,
  SEVERITIES,
  type ArtifactRef,
  type BuildIssue,
  type JsonPatchOp,
  type Layer,
  type Severity,
} from './build-issue.ts';
export { CATALOGUE, isCatalogueCode, type CatalogueEntry, type IssueCode } from './catalogue.ts';
export { fingerprint } from './fingerprint.ts';
export { compareIssues, sortIssues } from './sort-issues.ts';
export { formatPretty, summaryLine, type PrettyOptions } from './format-pretty.ts';
export { formatSarif, type LocateArtifact, type SarifOptions } from './format-sarif.ts';
export { makeIssue, type IssueInput } from './make-issue.ts';
