export {
  type ArtifactRef,
  ArtifactRefSchema,
  type BuildIssue,
  BuildIssueSchema,
  FIX_SAFETIES,
  type FixSafety,
  type IssueLocation,
  IssueLocationSchema,
  type JsonPatchOp,
  JsonPatchOpSchema,
  JsonValueSchema,
  LAYERS,
  type Layer,
  SEVERITIES,
  type Severity,
} from './build-issue.ts';
export { CATALOGUE, type CatalogueEntry, IMPACT_SEVERITY, type Impact, type IssueCode, isCatalogueCode } from './catalogue.ts';
export { fingerprint } from './fingerprint.ts';
export { formatGithub, type GithubOptions } from './format-github.ts';
export { formatPretty, type PrettyOptions, summaryLine } from './format-pretty.ts';
export { ruleHelpMarkdown, ruleHelpText, rulesDocument } from './format-rule-help.ts';
export { formatSarif, type LocateArtifact, SARIF_SRCROOT, type SarifOptions } from './format-sarif.ts';
export { type IssueInput, MAX_NAME_LENGTH, makeIssue } from './make-issue.ts';
export { RULE_DOCS, RULE_DOCS_URL, type RuleDoc, ruleDoc, ruleHelpUri } from './rule-docs.ts';
export { compareIssues, sortIssues } from './sort-issues.ts';
export { terminalText } from './terminal-text.ts';
