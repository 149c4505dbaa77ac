import type { Graph, NavItemDef } from '@bvl/metadata';
import { viewBody } from '@bvl/render-contract';

/** An object as the grader sees it. */
export interface ObjectSummary {
  readonly name: string;
  readonly label?: string;
  readonly pluralLabel?: string;
  readonly fields: number;
}

/** A view as the grader sees it: its name (`<object>.<key>`), object, kind, type and label. */
export interface ViewSummary {
  readonly name: string;
  readonly object?: string;
  readonly key: string;
  readonly kind: 'list' | 'form';
  readonly type?: string;
  readonly label?: string;
}

/** A dashboard as the grader sees it, with its widgets. */
export interface DashboardSummary {
  readonly name: string;
  readonly label?: string;
  readonly widgets: ReadonlyArray<{ readonly id: string; readonly type?: string; readonly dataset?: string; readonly title?: string }>;
}

/** What navigation reaches, over every app (`navigation` and `areas`, at any depth), as written. */
export interface NavigationSummary {
  readonly apps: string[];
  readonly objects: string[];
  readonly dashboards: string[];
}

/** The published app, as plain data: what role assertions match against. */
export interface AppSummary {
  readonly objects: ObjectSummary[];
  readonly views: ViewSummary[];
  readonly dashboards: DashboardSummary[];
  readonly navigation: NavigationSummary;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const byName = <T extends { name: string }>(xs: T[]): T[] => xs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();

/** An empty app: what a package that never published shows. */
export function emptyApp(): AppSummary {
  return { objects: [], views: [], dashboards: [], navigation: { apps: [], objects: [], dashboards: [] } };
}

/**
 * The published graph as plain, sorted data (no maps, no bodies): declared objects (platform
 * objects left out), views, dashboards with their widgets, and every navigation target. Pure.
 */
export function summarizeGraph(graph: Graph): AppSummary {
  const objects = byName(
    [...graph.objects.values()]
      .filter((o) => !o.platform)
      .map((o) => {
        const label = str(o.def.label);
        const plural = str((o.def as Record<string, unknown>).pluralLabel);
        return { name: o.name, ...(label ? { label } : {}), ...(plural ? { pluralLabel: plural } : {}), fields: o.fields.size };
      }),
  );
  const views = byName(
    [...graph.views.values()].map((v) => {
      const body = viewBody(v);
      const type = str(body.type);
      const label = str(body.label);
      return { name: v.name, ...(v.object ? { object: v.object } : {}), key: v.key, kind: v.kind, ...(type ? { type } : {}), ...(label ? { label } : {}) };
    }),
  );
  const dashboards = byName(
    [...graph.dashboards.values()].map((d) => {
      const label = str(d.def.label);
      return {
        name: d.name,
        ...(label ? { label } : {}),
        widgets: d.widgets.map((w) => ({
          id: w.id,
          ...(w.def.type ? { type: w.def.type } : {}),
          ...(w.def.dataset ? { dataset: w.def.dataset } : {}),
          ...(str(w.def.title) ? { title: w.def.title as string } : {}),
        })),
      };
    }),
  );
  const navObjects: string[] = [];
  const navDashboards: string[] = [];
  const walk = (items: readonly NavItemDef[] | undefined) => {
    for (const item of items ?? []) {
      if (item.type === 'object' && item.objectName) navObjects.push(item.objectName);
      if (item.type === 'dashboard' && item.dashboardName) navDashboards.push(item.dashboardName);
      walk(item.children);
    }
  };
  for (const app of graph.apps.values()) {
    walk(app.def.navigation);
    for (const area of app.def.areas ?? []) walk(area.navigation);
  }
  return { objects, views, dashboards, navigation: { apps: sorted(graph.apps.keys()), objects: sorted(navObjects), dashboards: sorted(navDashboards) } };
}
