import { generateStack } from './generate-stack.ts';

type Json = Record<string, unknown>;

/**
 * A generated app (see {@link generateStack}) of `units` units and drafts over it that break each
 * unit the way agents do, deterministically: a measure misspelt (`total` → `totl`, one safe patch),
 * a widget bound to a dataset that does not exist (`dangling_dataset`, which hides that widget's
 * measure and dimension checks), a view column misspelt (`amount` → `amout`), a kanban lane field
 * that is not a select, a seed value outside its options, and a seed in `insert` mode (a warning).
 * Six issues per unit (five errors, one warning): `generateBrokenStack(42)` answers 252.
 */
export function generateBrokenStack(units: number): { app: Record<string, unknown[]>; drafts: Record<string, unknown[]> } {
  const app = generateStack(Math.round(units * 7.01));
  const dashboards = (app.dashboards as Json[]).map((d): Json => {
    const widgets = structuredClone(d.widgets) as Json[];
    widgets[0]!.values = ['totl'];
    widgets[2]!.dataset = `${String(widgets[2]!.dataset)}_old`;
    return { ...d, widgets };
  });
  const views = (app.views as Json[]).map((v): Json => {
    const c = structuredClone(v) as { list: Json; listViews: { board: { kanban: Json } } };
    c.list.columns = ['name', 'amout', 'status', 'due'];
    c.listViews.board.kanban.groupByField = 'notes';
    return c;
  });
  const data = (app.data as Json[]).map((s): Json => {
    const records = structuredClone(s.records) as Json[];
    records[1]!.status = 'closed';
    return { ...s, mode: 'insert', records };
  });
  return { app, drafts: { dashboards, views, data } };
}
