export { defineRule, type Finding, heldRecords, type Rule, type RuleMeta, type SeedPassContext, type SeedRecord, type SeedRecordPass } from './define-rule.ts';
export {
  lintGraph,
  lintGraphStreamed,
  MAX_ISSUES_PER_ARTIFACT_CODE,
  MAX_LINT_ISSUES,
  type SeedRecordSource,
  type SeedSources,
  StoredSeedChanged,
  toIssue,
} from './lint-graph.ts';
export { MAX_HOPS, type PathResolution, resolvePath } from './resolve-path.ts';
export { RULES } from './rules/index.ts';
export { GROUPABLE_TYPES } from './rules/kanban-group-field-valid.ts';
