export { ARTIFACT_TYPES, artifactKey, type ArtifactSet, type ArtifactSource, type ArtifactType, type LoadProblem, type RawArtifact } from './artifact.ts';
export { MAX_DEPTH, STACK_KEYS, FOLDER_DIRS, collectFolder, collectStack, describe, jsonDepth, type CollectOptions, type FolderFile } from './collect-artifacts.ts';
export { clearWinner, didYouMean, editDistance } from './edit-distance.ts';
export {
  RELATION_TYPES,
  allFieldNames,
  assertNever,
  buildGraph,
  declaredFieldNames,
  optionValues,
  referenceOf,
  resolveField,
  type AppNode,
  type DashboardNode,
  type DatasetNode,
  type FieldNode,
  type Graph,
  type GraphBuild,
  type NamedNode,
  type ObjectNode,
  type SeedNode,
  type ViewNode,
  type WidgetNode,
} from './graph.ts';
export { childPointer, pointer } from './json-pointer.ts';
export { PLATFORM_OBJECTS } from './platform-objects.ts';
export { MAX_FILE_BYTES, SourceError, readSource } from './read-source.ts';
export * from './schemas.ts';
export { OWNERLESS_OWNERSHIP, SYSTEM_FIELDS } from './system-fields.ts';
export { BLOCK_FIELDS, formViewFieldMentions, listColumns, listFilterFields, listViewFieldMentions, normalizeSort, type FieldMention } from './view-fields.ts';
