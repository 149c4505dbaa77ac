export { rememberBodyHash, storedBodyHash } from './body-cache.ts';
export { BASE_TYPES, type BaseType, type ColumnType, columnTypeOf, FIELD_COLUMN_TYPES, sameColumnType, sqlTypeName, typeSql } from './column-type.ts';
export {
  type CompiledFind,
  compileFind,
  DEFAULT_FIND_LIMIT,
  type FindQuery,
  MAX_FILTER_ROWS,
  MAX_FIND_LIMIT,
  VIEW_FILTER_OPERATORS,
  type ViewFilterRow,
} from './compile-find.ts';
export { type Conversion, conversionOf, describeColumnType } from './convert-column.ts';
export { CopyData } from './copy-rows.ts';
export type {
  AiEvalBatchesTable,
  AiEvalCasesTable,
  AiEvalRunsTable,
  BuildRoundsTable,
  BuildSessionsTable,
  BuildTranscriptsTable,
  BvlDatabase,
  DynamicDatabase,
  EngineKind,
  EvalBatchStatus,
  EvalRunStatus,
  ItemState,
  PlatformContext,
  SessionStatus,
} from './database.ts';
export { describeConnectError, describeDbError, isConnectionLost, isDatabaseFailure, MAX_DB_MESSAGE, sqlState } from './describe-db-error.ts';
export { diffSchema, type ExistingForeignKey, type ExistingSchema, type ExistingTable, foreignKeyName, type SchemaStep } from './diff-schema.ts';
export { type CelResult, type CelValue, evaluateCel, isCelEnvelope, MAX_CEL_DEPTH, MAX_CEL_SOURCE } from './evaluate-cel.ts';
export {
  identifierProblem,
  isIdentifier,
  MAX_IDENTIFIER_LENGTH,
  MAX_TENANT_LENGTH,
  packageProblem,
  showName,
  tenantProblem,
  tenantSchema,
} from './identifier.ts';
export { naturalKeyOf } from './natural-key.ts';
export {
  DATA_DIR_ENV,
  DATA_DIR_LOCK,
  DEFAULT_MAX_CONNECTIONS,
  dumpPglite,
  openPlatform,
  type Platform,
  type PlatformOptions,
  POOL_SIZE_ENV,
  platformOptionsFromEnv,
  setNewDataDirTemplate,
} from './open-platform.ts';
export { orderSeeds } from './order-seeds.ts';
export { type Overlay, type OverlayRow, overlayOf } from './overlay-of.ts';
export {
  type ColumnDefault,
  type ColumnPlan,
  derivedName,
  type ForeignKeyPlan,
  type IndexPlan,
  MAX_LITERAL_DEFAULT,
  type OnDelete,
  planTables,
  storageNotNull,
  type TablePlan,
  type TablesPlan,
  uniqueScope,
} from './plan-tables.ts';
export { abortReason } from './run-cancel.ts';
export { createDataEngine, type DataEngine, type DataEngineScope, planDatasetQuery, planFind, type ReadResult, runCompiled } from './run-data-engine.ts';
export { type AfterStep, applySchemaSteps, ddlLiteral, readExistingSchema } from './run-ddl.ts';
export {
  DRAFT_LOCK_TRIES,
  type DraftSummary,
  discardDrafts,
  type LockedDraft,
  listDrafts,
  lockDrafts,
  type ReadOverlayOptions,
  readOverlay,
  readOverlayRows,
  SEED_STREAM,
  STAGE_BATCH,
  type StoredSeed,
  seedStreamStats,
  stageDrafts,
  stageTombstones,
  storedSeedRecords,
} from './run-drafts.ts';
export { checkSwitchLocks, readLockTable, readRelationCounts } from './run-lock-table.ts';
export { MIGRATIONS, migrateToLatest, TRY_PARSERS } from './run-migrations.ts';
export {
  LOCK_NOTICE_MS,
  LOCK_WAIT_MS,
  LockTimeoutError,
  type LockWaitNotice,
  packageLockKey,
  publishApplicationName,
  takeAdvisoryLock,
  tenantLockKey,
  withPackageLock,
} from './run-package-lock.ts';
export { packageExists, packagesOf } from './run-packages.ts';
export { createProbeEngine, type PlatformProbeEngine, type ProbeAnswer, type ProbeEngineOptions } from './run-probe-engine.ts';
export { latestProbeResult, previousProbeResult, recordProbeResult, type StoredProbeResult } from './run-probe-results.ts';
export {
  PUBLISH_LOCK_TIMEOUT_MS,
  type PublishedItem,
  type PublishOptions,
  type PublishPoint,
  type PublishResult,
  publishPackage,
  type RetiredItem,
} from './run-publish.ts';
export { type PublishRecord, type PublishStage, readPublish } from './run-publish-log.ts';
export { DEFAULT_STATEMENT_TIMEOUT_MS, type ReadOnlyContext, type ReadOnlySessions, readOnlyQuery, runReadOnly } from './run-read-only.ts';
export { checkRepublish, type RepublishCheck, type RepublishInput } from './run-republish-checks.ts';
export {
  type ApplySeedsOptions,
  applySeeds,
  MAX_SEED_ERRORS,
  MAX_SEED_RECORDS,
  SEED_CHUNK,
  type SeedApplied,
  type SeedError,
  type SeedOutcome,
} from './run-seeds.ts';
export { dropTenant, ensureOwnSchema, ensureTenant, ForeignSchemaError, tenantSchemaMark } from './run-tenant.ts';
export { checkScope, type PackageScope, ScopeError } from './scope.ts';
export {
  heldSeedRecords,
  pooledSeedRecords,
  SEED_READER_WAIT_MS,
  SeedReaderUnavailable,
  type SeedRecord,
  type SeedRecordSource,
  type SeedRecordsOf,
  SeedSourceError,
  storedSeedReader,
  tenantSeedRecords,
} from './seed-records.ts';
export { contentHash, fromStoredArtifact, type StoredArtifact, stableJson, toStoredArtifact } from './stored-artifact.ts';
export { storedSeedSources, verifyStored } from './stored-seeds.ts';
export { countSwitchLocks, type LockTable, lockTableIssue, type SwitchLocks, switchLocksOf } from './switch-locks.ts';
export { type ColumnValue, toColumnValue } from './to-column-value.ts';
export { verifyOverTenant } from './verify-over-tenant.ts';
export { type LockWait, watchLockWaits } from './watch-lock-waits.ts';
export { type ContractProblem, writeContractProblem } from './write-contract.ts';
