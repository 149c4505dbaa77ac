import type { IssueCode } from '@bvl/build-issue';

/** L2 codes whose artifact a renderer draws as the red "Unknown component type" box. */
export const RED_BOX_CODES: ReadonlySet<IssueCode> = new Set<IssueCode>(['typeless_schema', 'unknown_component', 'unknown_widget_type']);

/**
 * L2 codes whose artifact a renderer draws as an empty widget or a refusal: a missing binding, or a
 * query shape the component refuses.
 */
export const EMPTY_WIDGET_CODES: ReadonlySet<IssueCode> = new Set<IssueCode>(['layout_without_binding', 'unsatisfiable_query_shape']);

/** L2 codes whose artifact a renderer draws in place of what was authored: another type, a field it picked, part of the query. */
export const DEGRADED_CODES: ReadonlySet<IssueCode> = new Set<IssueCode>([
  'view_type_fallback',
  'widget_type_fallback',
  'query_shape_degraded',
  'layout_binding_inferred',
]);

/** What a person sees for an artifact with these L2 codes: the red box wins over an empty widget, which wins over a degraded one. */
export function expectedOutcome(codes: Iterable<string>): 'red-box' | 'empty-widget' | 'degraded' | 'rendered' {
  const all = [...codes];
  if (all.some((c) => RED_BOX_CODES.has(c as IssueCode))) return 'red-box';
  if (all.some((c) => EMPTY_WIDGET_CODES.has(c as IssueCode))) return 'empty-widget';
  if (all.some((c) => DEGRADED_CODES.has(c as IssueCode))) return 'degraded';
  return 'rendered';
}
