import type { IssueCode } from '@bvl/build-issue';

/** L2 codes whose artifact a renderer draws as the red "Unknown component type" box. */
export const RED_BOX_CODES: ReadonlySet<IssueCode> = new Set<IssueCode>(['typeless_schema', 'unknown_component', 'unknown_widget_type']);

/**
 * L2 codes whose artifact a renderer draws as an empty widget: a missing binding (it would fall
 * back to a literal field name) or a query shape the component cannot show.
 */
export const EMPTY_WIDGET_CODES: ReadonlySet<IssueCode> = new Set<IssueCode>(['layout_without_binding', 'unsatisfiable_query_shape']);

/** What a person would see for an artifact with these L2 codes: the red box wins over an empty widget. */
export function expectedOutcome(codes: Iterable<string>): 'red-box' | 'empty-widget' | 'rendered' {
  const all = [...codes];
  if (all.some((c) => RED_BOX_CODES.has(c as IssueCode))) return 'red-box';
  if (all.some((c) => EMPTY_WIDGET_CODES.has(c as IssueCode))) return 'empty-widget';
  return 'rendered';
}
