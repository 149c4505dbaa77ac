export {
  ARTIFACT_TYPES,
  type ArtifactSet,
  type ArtifactSource,
  type ArtifactType,
  artifactKey,
  type LoadProblem,
  type RawArtifact,
  type SourceNotice,
} from './artifact.ts';
export {
  type CollectOptions,
  collectFolder,
  collectStack,
  describe,
  FOLDER_DIRS,
  type FolderFile,
  findUnstorable,
  MAX_DEPTH,
  STACK_KEYS,
} from './collect-artifacts.ts';
export { describeSchemaProblem } from './describe-schema-problem.ts';
export { clearWinner, didYouMean, editDistance } from './edit-distance.ts';
export { type DuplicateKey, findDuplicateKeys, type KeyPosition, MAX_DUPLICATE_KEYS, scanDuplicateKeys, withDuplicateKeys } from './find-duplicate-keys.ts';
export { findJsonPositions, type JsonPosition, type PointerPosition } from './find-json-positions.ts';
export {
  type AppNode,
  allFieldNames,
  assertNever,
  type BuildGraphOptions,
  buildGraph,
  type DashboardNode,
  type DatasetNode,
  declaredFieldNames,
  type FieldNode,
  type Graph,
  type GraphBuild,
  type MergedOverlay,
  mergeOverlay,
  type NamedNode,
  type ObjectNode,
  optionValues,
  RELATION_TYPES,
  rebaseViewPaths,
  redraftedContainers,
  referenceOf,
  resolveField,
  type SeedNode,
  type ViewNode,
  type WidgetNode,
} from './graph.ts';
export { countKeys, INPUT_LIMITS, type JsonShape, scanJson } from './input-bounds.ts';
export { childPointer, pointer } from './json-pointer.ts';
export { type DocumentPlace, documentOf, type LocatedNotice, locateIssues, locateNotices, rebasePatch } from './locate-issues.ts';
export { NAV_ITEM_TYPES } from './nav-type-notices.ts';
export {
  isPlatformObjectName,
  mayBeHidden,
  PLATFORM_OBJECT_BY_NAME,
  PLATFORM_OBJECTS,
  type PlatformObjectDef,
  platformObjectsReached,
} from './platform-objects.ts';
export { MAX_FILE_BYTES, type ReadSourceOptions, readSource, SourceError, STDIN_NAME } from './read-source.ts';
export * from './schemas.ts';
export { type FileStamp, SourceTexts, textsOf } from './source-texts.ts';
export {
  DEFAULT_SPEC,
  type RetiredKey,
  SPEC_PROFILES,
  SPEC_SURFACES,
  type SpecProfile,
  SpecProfileError,
  type SpecSurface,
  specProfile,
} from './spec-profiles.ts';
export { dashboardRefusals, isUnderRefusal, type SpecRefusal, specRefusals, viewRefusals, widgetRefusals } from './spec-refusals.ts';
export { StoredRecords, storedRecordsOf } from './stored-records.ts';
export { OWNERLESS_OWNERSHIP, SYSTEM_FIELDS } from './system-fields.ts';
export {
  BLOCK_FIELDS,
  type FieldMention,
  formViewFieldMentions,
  listColumns,
  listFilterFields,
  listViewFieldMentions,
  normalizeSort,
  VIEW_FILTER_OPERATOR_NAMES,
  type ViewFilterOperator,
  visitFormViewFields,
  visitListViewFields,
} from './view-fields.ts';
