/**
 * Generates a correct, ObjectStack-shaped stack of about `artifacts` artifacts: units of one object
 * (8 fields, a lookup to the previous object), a view container (grid, kanban, form → 3 views), a
 * dataset, a dashboard of 4 widgets and a seed of 5 records; one app per 100 units.
 */
export function generateStack(artifacts: number): Record<string, unknown[]> {
  const units = Math.max(1, Math.round(artifacts / 7.01));
  const objects: unknown[] = [];
  const views: unknown[] = [];
  const datasets: unknown[] = [];
  const dashboards: unknown[] = [];
  const data: unknown[] = [];
  const apps: unknown[] = [];
  for (let u = 0; u < units; u++) {
    const o = `gen_obj_${u}`;
    const prev = `gen_obj_${Math.max(0, u - 1)}`;
    objects.push({
      name: o,
      label: `Object ${u}`,
      fields: {
        name: { type: 'text', required: true },
        amount: { type: 'currency' },
        qty: { type: 'number' },
        status: { type: 'select', options: ['open', 'won', 'lost'].map((v) => ({ label: v, value: v })) },
        due: { type: 'date' },
        done: { type: 'boolean' },
        notes: { type: 'textarea' },
        parent: { type: 'lookup', reference: prev },
      },
    });
    views.push({
      list: {
        type: 'grid',
        data: { provider: 'object', object: o },
        columns: ['name', 'amount', 'status', 'due'],
        sort: [{ field: 'due', order: 'desc' }],
        filter: [{ field: 'done', operator: 'equals', value: false }],
      },
      listViews: {
        board: { type: 'kanban', data: { provider: 'object', object: o }, columns: ['name', 'amount'], kanban: { groupByField: 'status', columns: ['name'] } },
      },
      formViews: {
        edit: { type: 'simple', data: { provider: 'object', object: o }, sections: [{ label: 'Main', fields: ['name', 'amount', 'qty', 'status', 'parent'] }] },
      },
    });
    datasets.push({
      name: `gen_ds_${u}`,
      label: 'Metrics',
      object: o,
      include: ['parent'],
      dimensions: [
        { name: 'status', field: 'status' },
        { name: 'month', field: 'due', dateGranularity: 'month' },
        { name: 'parent_name', field: 'parent.name' },
      ],
      measures: [
        { name: 'n', aggregate: 'count' },
        { name: 'total', aggregate: 'sum', field: 'amount' },
        { name: 'won', aggregate: 'count', filter: { status: 'won' } },
        { name: 'win_rate', derived: { op: 'ratio', of: ['won', 'n'] } },
      ],
    });
    dashboards.push({
      name: `gen_dash_${u}`,
      label: 'Dash',
      dateRange: { field: 'due' },
      widgets: [
        { id: 'total', type: 'metric', dataset: `gen_ds_${u}`, values: ['total'] },
        {
          id: 'by_status',
          type: 'bar',
          dataset: `gen_ds_${u}`,
          dimensions: ['status'],
          values: ['n'],
          chartConfig: { xAxis: { field: 'status' }, yAxis: [{ field: 'n' }] },
        },
        { id: 'trend', type: 'line', dataset: `gen_ds_${u}`, dimensions: ['month'], values: ['total', 'won'] },
        { id: 'table', type: 'table', dataset: `gen_ds_${u}`, dimensions: ['status'], values: ['n', 'total', 'win_rate'] },
      ],
    });
    data.push({
      object: o,
      externalId: 'name',
      records: Array.from({ length: 5 }, (_, i) => ({ name: `r${i}`, amount: i * 10, status: ['open', 'won', 'lost'][i % 3], parent: u > 0 ? `r${i}` : null })),
    });
    if (u % 100 === 0)
      apps.push({
        name: `gen_app_${u}`,
        label: 'App',
        navigation: [
          {
            id: 'g',
            type: 'group',
            children: Array.from({ length: Math.min(100, units - u) }, (_, i) => ({
              id: `n${i}`,
              type: 'object',
              objectName: `gen_obj_${u + i}`,
              viewName: 'board',
            })),
          },
        ],
      });
  }
  return { objects, views, datasets, dashboards, data, apps };
}
