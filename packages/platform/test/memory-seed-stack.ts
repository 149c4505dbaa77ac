// The package the seed memory measures stage (publish-memory-child.ts, run-seeds-stream.test.ts):
// a region object and a row object whose seed holds `size` records, keyed by code.
export function memorySeedStack(size: number): { objects: unknown[]; data: unknown[] } {
  const objects = [
    { name: 'region', fields: { name: { type: 'text' } } },
    {
      name: 'row',
      fields: {
        code: { type: 'text' },
        title: { type: 'text' },
        amount: { type: 'number' },
        status: { type: 'select', options: ['open', 'won', 'lost'] },
        due: { type: 'date' },
        done: { type: 'boolean' },
        region: { type: 'lookup', reference: 'region' },
      },
    },
  ];
  const records = Array.from({ length: size }, (_, i) => ({
    code: `R-${i}`,
    title: `Row ${i}`,
    amount: (i % 997) * 1.25,
    status: ['open', 'won', 'lost'][i % 3],
    due: { dialect: 'cel', source: `daysAgo(${i % 365})` },
    done: i % 2 === 0,
    region: `Region ${i % 5}`,
  }));
  const regions = Array.from({ length: 5 }, (_, i) => ({ name: `Region ${i}` }));
  return {
    objects,
    data: [
      { object: 'region', records: regions },
      { object: 'row', externalId: 'code', records },
    ],
  };
}
