export { checkInertFields } from './check-inert-fields.ts';
export { type CheckRenderOptions, checkRender, type RenderCheck } from './check-render.ts';
export { type Checked, checkView } from './check-view.ts';
export { checkWidget } from './check-widget.ts';
export { type CompileResult, compileDataset, problemIssue } from './compile-dataset.ts';
export { type ColumnRef, compileFilter, type FilterContext, MAX_FILTER_DEPTH, MAX_IN_LIST, type Segment } from './compile-filter.ts';
export {
  type Arity,
  type BindSpec,
  bindingSets,
  type ComponentEntry,
  type ComponentRegistry,
  isRegistered,
  type MissingBinding,
  missingBindings,
  type Outcome,
  type QueryShape,
  RegistryError,
  SHAPE_PARTS,
  type ShapePart,
  type ShapeRule,
  shapeOf,
  TEMPLATES,
  type Template,
  type TypeFamily,
  type UnknownType,
  type VariantShape,
  type ViewTypeEntry,
  type WidgetTypeEntry,
} from './component-registry.ts';
export type { ComponentSchema, ResolvedField } from './component-schema.ts';
export {
  type CompiledDataset,
  type CompileOptions,
  type CompileProblem,
  type DatasetPlan,
  type DatasetSelection,
  type DateGranularity,
  MAX_DERIVED_DEPTH,
  MAX_DERIVED_TERMS,
  MAX_INCLUDE_HOPS,
  type ProblemOrigin,
} from './dataset-plan.ts';
export { DatasetPlanner, planDataset } from './dataset-planner.ts';
export { CONTEXT_TOKENS, DATE_MACRO_NAMES, dateMacroSql, MAX_MACRO_COUNT, type MacroKind, placeholderName, type ResolvedMacro } from './date-macro-sql.ts';
export { type DeferredSql, once } from './deferred-sql.ts';
export { emitSql, type Join, type QueryParts, type Select } from './emit-sql.ts';
export { escapeHtml } from './escape-html.ts';
export { DEGRADED_CODES, EMPTY_WIDGET_CODES, expectedOutcome, RED_BOX_CODES } from './expected-outcome.ts';
export { parseRegistry } from './parse-registry.ts';
export { isSqlIdentifier, MAX_IDENTIFIER_LENGTH, PG_SQL } from './pg-sql.ts';
export type { Mention, PlanContext, PlannedMeasure } from './plan-context.ts';
export { planDimension } from './plan-dimension.ts';
export { type JoinedObject, PlanJoins } from './plan-joins.ts';
export { planMeasure } from './plan-measure.ts';
export { type RenderData, type RenderOptions, renderErrorBox, renderToHtml } from './render-to-html.ts';
export { DEFAULT_REGISTRY, DEFAULT_RENDERER, RENDERER_PROFILES, rendererProfile } from './renderer-profiles.ts';
export { resolveFieldOf } from './resolve-field-of.ts';
export { describeArity, partCounts, type ShapeCounts, type ShapeFinding, shapeFindings } from './shape-findings.ts';
export { detectStatusField, translateView, type ViewType, viewBody, viewTypeOf } from './translate-view.ts';
export { translateWidget, type WidgetType, widgetTypeOf } from './translate-widget.ts';
export { widgetQueryOptions } from './widget-query-options.ts';
