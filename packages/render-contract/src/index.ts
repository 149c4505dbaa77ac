export { checkInertFields } from './check-inert-fields.ts';
export { checkRender, type CheckRenderOptions, type RenderCheck } from './check-render.ts';
export { checkView, type Checked } from './check-view.ts';
export { checkWidget } from './check-widget.ts';
export {
  MAX_DERIVED_DEPTH,
  MAX_DERIVED_TERMS,
  MAX_INCLUDE_HOPS,
  compileDataset,
  planDataset,
  problemIssue,
  type CompileOptions,
  type CompileProblem,
  type CompileResult,
  type CompiledDataset,
  type DatasetPlan,
  type DatasetSelection,
  type ProblemOrigin,
} from './compile-dataset.ts';
export { MAX_FILTER_DEPTH, MAX_IN_LIST, compileFilter, type ColumnRef, type FilterContext, type Segment } from './compile-filter.ts';
export {
  RegistryError,
  TEMPLATES,
  isRegistered,
  parseRegistry,
  shapeOf,
  type Arity,
  type BindSpec,
  type ComponentEntry,
  type ComponentRegistry,
  type QueryShape,
  type Template,
  type ViewTypeEntry,
  type WidgetTypeEntry,
} from './component-registry.ts';
export type { ComponentSchema, ResolvedField } from './component-schema.ts';
export { CONTEXT_TOKENS, DATE_MACRO_NAMES, MAX_MACRO_COUNT, dateMacroSql, placeholderName, type MacroKind, type ResolvedMacro } from './date-macros.ts';
export { DEFAULT_REGISTRY } from './default-registry.ts';
export { escapeHtml } from './escape-html.ts';
export { describeArity, shapeProblem, type ShapeProblem } from './query-shape.ts';
export { renderErrorBox, renderToHtml, type RenderData, type RenderOptions } from './render-to-html.ts';
export { resolveFieldOf } from './resolve-field.ts';
export { MAX_IDENTIFIER_LENGTH, PG_COMPILER, isSqlIdentifier, type AnyDatabase } from './sql-compiler.ts';
export { type DomSweep, sweepDom } from './sweep-dom.ts';
export { translateView, viewBody, viewTypeOf } from './translate-view.ts';
export { translateWidget, widgetTypeOf } from './translate-widget.ts';
