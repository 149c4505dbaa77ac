import { describe, expect, it } from 'vitest';
import { exampleDoc, FIXTURE_NAMES, fixtureDoc } from './fixtures.ts';
import { scaleStack } from './scale-stack.ts';

describe('fixtures', () => {
  it('reads each fixture as a fresh copy', () => {
    for (const name of FIXTURE_NAMES) {
      const a = fixtureDoc(name);
      (a.objects as unknown[]).length = 0;
      expect((fixtureDoc(name).objects as unknown[]).length).toBeGreaterThan(0);
    }
  });

  it('reads the example app folder as a stack document', () => {
    const app = exampleDoc('app');
    expect(Object.fromEntries(Object.entries(app).map(([k, v]) => [k, v.length]))).toEqual({
      objects: 3,
      views: 2,
      dashboards: 1,
      datasets: 1,
      apps: 1,
      data: 3,
    });
    expect(Object.keys(exampleDoc('drafts')).sort()).toEqual(['apps', 'dashboards', 'views']);
  });
});

describe('scaleStack', () => {
  it('renames every prefixed name per copy, so copies never collide', () => {
    const doc = { objects: [{ name: 'fs_a', fields: { b: { type: 'lookup', reference: 'fs_a' } } }], label: 'x', other_fs_a: 1 };
    const out = scaleStack(doc, 'fs_', 3, (d) => (d.objects as unknown[]).length);
    expect(out).toEqual({
      objects: [0, 1, 2].map((k) => ({ name: `fs${k}_a`, fields: { b: { type: 'lookup', reference: `fs${k}_a` } } })),
    });
  });
});
