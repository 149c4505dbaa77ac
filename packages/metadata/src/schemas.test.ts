import { EXAMPLE_DIR, fixtureDoc, propertyRuns } from '@bvl/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { collectStack } from './collect-artifacts.ts';
import { buildGraph } from './graph.ts';
import { readSource } from './read-source.ts';
import {
  AppSchema,
  DashboardShellSchema,
  DatasetSchema,
  DimensionSchema,
  FieldSchema,
  FormViewSchema,
  fastCheck,
  ListViewSchema,
  LooseName,
  MeasureSchema,
  NamedSchema,
  NavItemSchema,
  ObjectShellSchema,
  SeedSchema,
  SelectOptionSchema,
  SnakeName,
  validate,
  WidgetSchema,
} from './schemas.ts';

const SCHEMAS: Record<string, z.ZodType> = {
  SnakeName,
  LooseName,
  SelectOptionSchema,
  FieldSchema,
  ObjectShellSchema,
  ListViewSchema,
  FormViewSchema,
  WidgetSchema,
  DashboardShellSchema,
  DimensionSchema,
  MeasureSchema,
  DatasetSchema,
  NavItemSchema,
  AppSchema,
  SeedSchema,
  NamedSchema,
};

/** Every artifact body of the fixtures and the example app, with the schema that judges it. */
async function realBodies(): Promise<Array<[string, z.ZodType, unknown]>> {
  const sets = [collectStack(fixtureDoc('field-service')), await readSource(`${EXAMPLE_DIR}/app`), await readSource(`${EXAMPLE_DIR}/drafts`)];
  const out: Array<[string, z.ZodType, unknown]> = [];
  for (const set of sets)
    for (const a of set.artifacts) {
      const b = a.body as Record<string, unknown>;
      if (a.type === 'object') {
        out.push([a.name, ObjectShellSchema, b]);
        for (const [f, body] of Object.entries((b.fields ?? {}) as Record<string, unknown>)) out.push([`${a.name}.${f}`, FieldSchema, body]);
      } else if (a.type === 'view') out.push([a.name, a.viewKind === 'form' ? FormViewSchema : ListViewSchema, b]);
      else if (a.type === 'dashboard') {
        out.push([a.name, DashboardShellSchema, b]);
        for (const w of b.widgets as unknown[]) out.push([`${a.name} widget`, WidgetSchema, w]);
      } else if (a.type === 'dataset') out.push([a.name, DatasetSchema, b]);
      else if (a.type === 'app') out.push([a.name, AppSchema, b]);
      else if (a.type === 'seed') out.push([a.name, SeedSchema, { ...b, records: b.records ?? b.data ?? b.rows }]);
      else out.push([a.name, NamedSchema, b]);
    }
  return out;
}

/** Values near the schemas' edges: wrong types, empty and long strings, symbols, sparse arrays, prototypes. */
const edgy = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.anything({ maxDepth: 3, withNullPrototype: true, withObjectString: true, withSparseArray: true, withBoxedValues: true }),
  fc.constantFrom(
    '',
    'a',
    'A',
    '😀',
    '😀😀',
    'x'.repeat(63),
    'x'.repeat(64),
    'x'.repeat(129),
    'in_progress',
    'In Progress',
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ),
);

describe('fastCheck', () => {
  it('compiles every schema of the format (none falls back to zod alone)', () => {
    for (const [name, schema] of Object.entries(SCHEMAS)) expect(fastCheck(schema), name).not.toBeNull();
  });

  it('takes the fast path for every real body: it accepts what the schema accepts there', async () => {
    for (const [name, schema, body] of await realBodies()) {
      expect(schema.safeParse(body).success, name).toBe(true);
      expect(fastCheck(schema)!(body), name).toBe(true);
    }
  });

  it('is never looser than its schema, on random values and on real bodies with a random part replaced', async () => {
    const bodies = await realBodies();
    const entries = Object.entries(SCHEMAS);
    fc.assert(
      fc.property(fc.nat(), edgy, (i, value) => {
        const [name, schema] = entries[i % entries.length]!;
        if (fastCheck(schema)!(value)) expect(schema.safeParse(value).success, `${name} ${fc.stringify(value)}`).toBe(true);
      }),
      propertyRuns(3_000, 30_000),
    );
    fc.assert(
      fc.property(fc.nat(), fc.nat(), edgy, (i, at, value) => {
        const [name, schema, body] = bodies[i % bodies.length]!;
        const copy = structuredClone(body);
        // Replace one value somewhere inside the body.
        const slots: Array<[Record<string | number, unknown>, string | number]> = [];
        const walk = (v: unknown) => {
          if (typeof v !== 'object' || v === null) return;
          for (const k of Object.keys(v)) {
            slots.push([v as Record<string, unknown>, Array.isArray(v) ? Number(k) : k]);
            walk((v as Record<string, unknown>)[k]);
          }
        };
        walk(copy);
        if (slots.length === 0) return;
        const [container, key] = slots[at % slots.length]!;
        container[key] = value;
        if (fastCheck(schema)!(copy)) expect(schema.safeParse(copy).success, name).toBe(true);
      }),
      propertyRuns(3_000, 30_000),
    );
  });

  it('validate gives the schema verdict and, on failure, its own issues', () => {
    expect(validate(SnakeName, 'ok_name')).toEqual({ success: true });
    const bad = validate(SnakeName, 'Bad Name');
    expect(bad.success).toBe(false);
    if (!bad.success) expect(bad.error.issues).toEqual(SnakeName.safeParse('Bad Name').error!.issues);
    // Three UTF-16 units but two code points: too long for zod's counting only when over the limit.
    expect(validate(LooseName.max(2), 'a😀').success).toBe(LooseName.max(2).safeParse('a😀').success);
  });

  it('generated checks read keys that are not identifiers, or that Object.prototype has, as zod does', () => {
    const schema = z.looseObject({
      'a"b\\c': z.string(),
      'x y': z.number().optional(),
      constructor: z.string().optional(),
      toString: z.array(z.string().min(2)).optional(),
      nested: z.record(z.string(), z.union([z.boolean(), z.looseObject({ 'k-1': z.enum(['p', 'q']) })])).optional(),
    });
    const check = fastCheck(schema)!;
    expect(check).not.toBeNull();
    const values: unknown[] = [
      { 'a"b\\c': 's' },
      { 'a"b\\c': 1 },
      { 'a"b\\c': 's', 'x y': 'n' },
      { 'a"b\\c': 's', constructor: 'c', toString: ['aaaa'] },
      { 'a"b\\c': 's', toString: ['a'] },
      { 'a"b\\c': 's', constructor: 1 },
      { 'a"b\\c': 's', nested: { u: true, w: { 'k-1': 'p' } } },
      { 'a"b\\c': 's', nested: { w: { 'k-1': 'r' } } },
      { ab: 's' },
    ];
    for (const v of values) {
      const ok = schema.safeParse(v).success;
      expect(check(v), JSON.stringify(v)).toBe(ok);
    }
  });
});

describe('buildGraph keeps raw bodies that equal the schemas’ output', () => {
  it('for every artifact of the field-service fixture', () => {
    const set = collectStack(fixtureDoc('field-service'));
    const { graph, issues } = buildGraph(set);
    expect(issues).toEqual([]);
    for (const v of graph.views.values()) expect(v.list ?? v.form).toEqual((v.kind === 'form' ? FormViewSchema : ListViewSchema).parse(v.list ?? v.form));
    for (const d of graph.dashboards.values()) {
      expect(d.def).toEqual(DashboardShellSchema.parse(d.def));
      for (const w of d.widgets) expect(w.def).toEqual(WidgetSchema.parse(w.def));
    }
    for (const d of graph.datasets.values()) {
      const body = set.artifacts.find((a) => a.type === 'dataset' && a.name === d.name)!.body;
      expect(d.def).toEqual(DatasetSchema.parse(body));
    }
    for (const o of graph.objects.values()) if (!o.platform) for (const f of o.fields.values()) expect(f.def).toEqual(FieldSchema.parse(f.def));
    for (const a of graph.apps.values()) expect(a.def).toEqual(AppSchema.parse(a.def));
  });

  it('fills in a dataset’s default dimensions and measures as the schema does', () => {
    const { graph } = buildGraph(collectStack({ objects: [{ name: 'o', fields: {} }], datasets: [{ name: 'd', object: 'o' }] }));
    expect(graph.datasets.get('d')?.def).toEqual(DatasetSchema.parse({ name: 'd', object: 'o' }));
  });
});
