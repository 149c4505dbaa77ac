import { type BuildIssue, makeIssue } from '@bvl/build-issue';
import { formViewFieldMentions, type Graph, listColumns, normalizeSort, type ViewNode } from '@bvl/metadata';
import type { ProbeOutcome, ViewRead } from './probe-engine.ts';
import type { SkippedProbe } from './probe-report.ts';

/** A planned view probe: the read the renderer does when the view opens. */
export interface ViewProbe {
  readonly view: ViewNode;
  readonly object: string;
  readonly read: ViewRead;
}

// Dotted paths (`account.name`) are display expansions the renderer resolves through the lookup,
// not columns of this table; the probe reads the table's own columns.
const own = (field: string): boolean => field.length > 0 && !field.includes('.');

/**
 * The first-page read of a view: a list view's columns, filter and sort with limit 1; a form view's
 * section fields with limit 1 (the record a form loads). Undefined when the view reads no object table.
 */
export function viewRead(view: ViewNode): ViewRead | undefined {
  if (view.kind === 'form') {
    if (!view.form) return undefined;
    return {
      columns: unique(
        formViewFieldMentions(view.form)
          .map((m) => m.field)
          .filter(own),
      ),
      limit: 1,
    };
  }
  const list = view.list;
  if (!list) return undefined;
  const sort = normalizeSort(list.sort)
    .filter((s) => own(s.field))
    .map((s) => ({ field: s.field, order: s.order }));
  return {
    columns: unique(
      listColumns(list)
        .map((m) => m.field)
        .filter(own),
    ),
    ...(list.filter !== undefined ? { filter: ownFilter(list.filter) } : {}),
    ...(sort.length ? { sort } : {}),
    limit: 1,
  };
}

/** The filter conditions on the table's own columns (dotted lookup paths are the renderer's to resolve, as for columns). */
function ownFilter(filter: NonNullable<NonNullable<ViewNode['list']>['filter']>): typeof filter {
  if (Array.isArray(filter)) return filter.filter((row) => own(row.field));
  return Object.fromEntries(Object.entries(filter).filter(([k]) => k.startsWith('$') || own(k)));
}

function unique(xs: string[]): string[] {
  return xs.filter((x, i) => xs.indexOf(x) === i);
}

/** The views to probe and the ones skipped with their reason. Pure. */
export function planViewProbes(graph: Graph): { probes: ViewProbe[]; skipped: SkippedProbe[] } {
  const probes: ViewProbe[] = [];
  const skipped: SkippedProbe[] = [];
  for (const view of [...graph.views.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const skip = (reason: string) => skipped.push({ plane: 'views', artifact: { type: 'view', name: view.name }, reason });
    const provider = view.list?.data?.provider ?? view.form?.data?.provider;
    if (view.invalid) skip('the view fails its schema (reported by L1 as invalid_artifact)');
    else if (provider !== undefined && provider !== 'object') skip(`the view reads through provider "${provider}", not an object table`);
    else if (!view.object) skip('the view is bound to no object');
    else if (!graph.objects.has(view.object)) skip(`object "${view.object}" does not exist (reported by L1 as dangling_object)`);
    else {
      const read = viewRead(view);
      if (read) probes.push({ view, object: view.object, read });
      else skip('the view has no body to read with');
    }
  }
  return { probes, skipped };
}

/** Judges a view's read: a failure is `view_read_failed` carrying the database's error. Pure. */
export function judgeView(probe: ViewProbe, outcome: ProbeOutcome<{ rows: number; sql?: string }>): BuildIssue | undefined {
  if (outcome.ok) return undefined;
  const { view, object } = probe;
  const what = view.kind === 'form' ? 'the record its form loads' : 'its first page';
  return makeIssue({
    code: 'view_read_failed',
    artifact: { type: 'view', name: view.name },
    ref: { type: 'object', name: object },
    message: `View "${view.name}" cannot read ${what} from object "${object}": ${outcome.error}. The renderer runs this read (columns ${probe.read.columns.join(', ') || 'none'}${probe.read.sort?.length ? `; sort ${probe.read.sort.map((s) => `${s.field} ${s.order}`).join(', ')}` : ''}${probe.read.filter ? '; its filter' : ''}; limit 1) when the view opens.${outcome.sql ? ` SQL: ${outcome.sql}` : ''}`,
    fix: `Make every column, filter and sort field of view "${view.name}" a published field of object "${object}" (publish the object so its column exists), or remove it from the view.`,
    draft: view.draft,
  });
}
