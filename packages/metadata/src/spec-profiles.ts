/** The surfaces whose keys a spec release retires by name. */
export const SPEC_SURFACES = ['listView', 'formView', 'widget', 'dashboard'] as const;
export type SpecSurface = (typeof SPEC_SURFACES)[number];

/** A key a spec release refuses by name: what it was, and what to write instead. */
export interface RetiredKey {
  /** The release that removed it. */
  readonly since: string;
  /** What to do instead, for the fix. */
  readonly instead: string;
}

/**
 * What one ObjectStack spec release refuses by name, as bvl encodes it: the closed enums bvl's own
 * tolerant schemas leave open (view and widget types), the keys the release retired, and the keys
 * a view block must have. Each list names the spec schema it comes from, so a finding can cite it.
 * Only refusals bvl reports are here; the oracle tier (packages/oracle) compares the rest.
 */
export interface SpecProfile {
  /** `objectstack-17.4`: the name `--spec` takes. */
  readonly name: string;
  /** The npm package and version the lists were read from. */
  readonly package: string;
  readonly listViewTypes: readonly string[];
  readonly formViewTypes: readonly string[];
  readonly widgetTypes: readonly string[];
  readonly retired: Readonly<Record<SpecSurface, Readonly<Record<string, RetiredKey>>>>;
  /** Keys a list-view block (kanban, …) must have when the block is there. */
  readonly requiredBlockKeys: Readonly<Record<string, readonly string[]>>;
}

const deleteIt = (what: string): RetiredKey => ({ since: '17.0.0', instead: `delete the key (${what})` });

/** @objectstack/spec 17.4.0 (src/ui/view.zod.ts, dashboard.zod.ts, chart.zod.ts). */
const OBJECTSTACK_17_4: SpecProfile = {
  name: 'objectstack-17.4',
  package: '@objectstack/spec@17.4.0',
  // ListViewSchema.type
  listViewTypes: ['grid', 'kanban', 'gallery', 'calendar', 'timeline', 'gantt', 'map', 'chart', 'tree', 'page'],
  // FormViewSchema.type
  formViewTypes: ['simple', 'tabbed', 'wizard', 'split', 'drawer', 'modal'],
  // ChartTypeSchema: only the families a renderer draws distinctly (no grouped-bar, spline, bubble, …)
  widgetTypes: [
    'bar',
    'horizontal-bar',
    'column',
    'line',
    'area',
    'pie',
    'donut',
    'funnel',
    'scatter',
    'treemap',
    'sankey',
    'combo',
    'gauge',
    'solid-gauge',
    'metric',
    'kpi',
    'bullet',
    'radar',
    'table',
    'pivot',
  ],
  retired: {
    listView: {
      responsive: deleteIt('no renderer read it; the grid lays itself out'),
      performance: deleteIt('no renderer or runtime read it'),
      striped: deleteIt('no renderer applied it'),
      bordered: deleteIt('the grid frame is not authorable'),
      virtualScroll: deleteIt('large lists page through "pagination"'),
    },
    formView: {
      defaultSort: deleteIt('a related list sorts by its own list view\'s "sort"'),
      aria: deleteIt('no form renderer applied it'),
    },
    widget: {
      actionUrl: deleteIt('no renderer drew a widget action; header actions live in the dashboard "header"'),
      actionType: deleteIt('no renderer drew a widget action; header actions live in the dashboard "header"'),
      actionIcon: deleteIt('no renderer drew a widget action; header actions live in the dashboard "header"'),
      responsive: deleteIt('the dashboard grid reflows by its own layout'),
      aria: deleteIt('give the widget a "title" and "description" instead'),
    },
    dashboard: {
      refreshInterval: { since: '17.0.0', instead: 'rename it to "refreshIntervalSeconds" (same value, in seconds)' },
      aria: deleteIt('no dashboard renderer applied it'),
      performance: deleteIt('no renderer or runtime read it'),
    },
  },
  // KanbanConfigSchema.groupByField
  requiredBlockKeys: { kanban: ['groupByField'] },
};

/** The spec releases bvl knows, by name, oldest first. */
export const SPEC_PROFILES: Readonly<Record<string, SpecProfile>> = Object.freeze({ [OBJECTSTACK_17_4.name]: OBJECTSTACK_17_4 });

/** The spec verification uses unless told otherwise: the newest. */
export const DEFAULT_SPEC = OBJECTSTACK_17_4.name;

/** A named spec profile; throws a {@link SpecProfileError} naming the known ones for any other name. */
export function specProfile(name: string): SpecProfile {
  if (Object.hasOwn(SPEC_PROFILES, name)) return SPEC_PROFILES[name]!;
  throw new SpecProfileError(`unknown spec "${name}" (known: ${Object.keys(SPEC_PROFILES).join(', ')})`);
}

/** An unknown spec name: a usage error, not bad metadata. */
export class SpecProfileError extends Error {
  override readonly name = 'SpecProfileError';
}
