import { buildGraph, collectStack, type FieldNode, type Graph, type ObjectNode } from '@bvl/metadata';
import { describe, expect, it } from 'vitest';
import { diffSchema, type ExistingSchema, foreignKeyName } from './diff-schema.ts';
import { planTables } from './plan-tables.ts';

const graphOf = (doc: unknown): Graph => buildGraph(collectStack(doc)).graph;
const STACK = {
  objects: [
    {
      name: 'acct',
      fields: {
        name: { type: 'text' },
        revenue: { type: 'currency', defaultValue: 0 },
        tier: { type: 'select', options: [{ value: 'gold', default: true }, { value: 'free' }] },
      },
    },
    {
      name: 'deal',
      fields: {
        title: { type: 'text' },
        account: { type: 'lookup', reference: 'acct', deleteBehavior: 'cascade' },
        watchers: { type: 'lookup', reference: 'acct', multiple: true },
        owner: { type: 'user' },
        stage: { type: 'select', defaultValue: "it's open" },
        due: { type: 'date', defaultValue: '{today}' },
        created_at: { type: 'date' },
      },
    },
  ],
  data: [{ object: 'deal', externalId: ['title', 'account'], records: [] }],
};

describe('planTables', () => {
  const { tables, issues } = planTables(graphOf(STACK));
  const deal = tables.find((t) => t.name === 'deal')!;
  const col = (name: string) => deal.columns.find((c) => c.name === name);

  it('plans a table per object, platform objects included', () => {
    expect(issues).toEqual([]);
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['acct', 'deal', 'sys_user', 'sys_business_unit']));
  });
  it('gives every table an id primary key and the system columns', () => {
    expect(col('id')).toMatchObject({ origin: 'id', type: { base: 'text' }, default: { kind: 'uuid' } });
    expect(col('is_deleted')).toMatchObject({ origin: 'system', type: { base: 'boolean' }, default: { kind: 'literal', value: false } });
    expect(col('owner_id')).toMatchObject({ origin: 'system', type: { base: 'text' } });
  });
  it('lets a declared field win over the system column of the same name', () =>
    expect(col('created_at')).toMatchObject({ origin: 'field', type: { base: 'date' } }));
  it('references the target id from single lookups only, with the delete rule', () => {
    expect(col('account')?.references).toEqual({ table: 'acct', onDelete: 'cascade' });
    expect(col('owner')?.references).toEqual({ table: 'sys_user', onDelete: 'set null' });
    expect(col('watchers')).toMatchObject({ type: { base: 'text', array: true }, references: undefined });
  });
  it('carries literal defaults but not placeholders', () => {
    expect(col('stage')?.default).toEqual({ kind: 'literal', value: "it's open" });
    expect(col('due')?.default).toBeUndefined();
    const acct = tables.find((t) => t.name === 'acct')!;
    expect(acct.columns.find((c) => c.name === 'revenue')?.default).toEqual({ kind: 'literal', value: 0 });
    expect(acct.columns.find((c) => c.name === 'tier')?.default).toEqual({ kind: 'literal', value: 'gold' });
  });
  it('indexes the seed externalId and name', () => {
    expect(deal.indexes.map((i) => i.columns)).toEqual([['title', 'account']]);
    expect(tables.find((t) => t.name === 'acct')!.indexes.map((i) => i.columns)).toEqual([['name']]);
  });

  it('refuses a hostile object name that got past the schema, before any SQL, naming it', () => {
    const g = graphOf({ objects: [{ name: 'placeholder', fields: {} }] });
    const node = g.objects.get('placeholder')!;
    const objects = g.objects as Map<string, typeof node>;
    objects.delete('placeholder');
    for (const name of ['x"; drop schema bvl cascade; --', 'a'.repeat(10_000)]) objects.set(name, { ...node, name });
    const r = planTables(g);
    expect(r.issues.map((i) => [i.code, i.path])).toEqual([
      ['invalid_artifact', '/name'],
      ['invalid_artifact', '/name'],
    ]);
    expect(r.issues[0]!.message).toMatch(/cannot become a table: its name must be snake_case.*refused the publish before running any SQL/);
    expect(r.issues[1]!.message).toMatch(/10000 characters long/);
    expect(r.tables.map((t) => t.name)).not.toContain('a'.repeat(10_000));
  });
  it('plans nothing for an object whose body failed its schema (buildGraph reported it)', () => {
    const r = planTables(graphOf({ objects: [{ name: 'Bad Name', fields: {} }] }));
    expect(r.issues).toEqual([]);
    expect(r.tables.map((t) => t.name)).not.toContain('Bad Name');
  });
  it('refuses a hostile field name that got past the schema (defence in depth)', () => {
    const g = graphOf({ objects: [{ name: 'o', fields: { ok: { type: 'text' } } }] });
    const bad: FieldNode = { name: 'x" text); drop table o; --', def: { type: 'text' }, system: false, invalid: false };
    const o = g.objects.get('o')!;
    (g.objects as Map<string, ObjectNode>).set('o', { ...o, fields: new Map([...o.fields, [bad.name, bad]]) });
    const r = planTables(g);
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ code: 'invalid_artifact', ref: { member: bad.name } });
    expect(r.tables.map((t) => t.name)).not.toContain('o');
  });
  it('refuses a field named like the columns bvl adds for a type change that got past the schema (a republish would take it for one)', () => {
    const taken = `bvl_sh_${'0a'.repeat(12)}`;
    const g = graphOf({ objects: [{ name: 'o', fields: { bvl_sh_note: { type: 'text' } } }] });
    const o = g.objects.get('o')!;
    const bad = [taken, `bvl_rt_${'f'.repeat(24)}`].map((name): [string, FieldNode] => [name, { name, def: { type: 'text' }, system: false, invalid: false }]);
    (g.objects as Map<string, ObjectNode>).set('o', { ...o, fields: new Map([...o.fields, ...bad]) });
    const r = planTables(g);
    expect(r.issues.map((i) => [i.code, i.ref?.member])).toEqual([
      ['invalid_artifact', taken],
      ['invalid_artifact', `bvl_rt_${'f'.repeat(24)}`],
    ]);
    expect(r.issues[0]!.message).toBe(
      `Field "${taken}" of object "o" cannot become a column: its name is one bvl keeps for the columns it adds during a type change (bvl_sh_ or bvl_rt_ and 24 hex digits). bvl refused the publish before running any SQL.`,
    );
    expect(r.issues[0]!.fix).toMatch(/^Rename the field: a name of bvl_sh_ or bvl_rt_ and 24 hex digits is taken/);
    expect(r.tables.map((t) => t.name)).not.toContain('o');
  });
});

describe('diffSchema', () => {
  const planned = planTables(graphOf(STACK)).tables.filter((t) => !t.platform || t.name === 'sys_user');
  const empty: ExistingSchema = { tables: new Map(), indexes: new Set() };

  it('creates tables first and adds foreign keys after every table exists', () => {
    const steps = diffSchema(planned, empty);
    const kinds = steps.map((s) => s.kind);
    expect(kinds.lastIndexOf('create_table')).toBeLessThan(kinds.indexOf('add_foreign_key'));
    expect(steps.filter((s) => s.kind === 'add_foreign_key').every((s) => s.kind === 'add_foreign_key' && s.validate)).toBe(true);
  });
  it('is empty when the database matches', () => {
    const steps = diffSchema(planned, empty);
    const tables = new Map(
      planned.map((t) => [
        t.name,
        {
          columns: new Map(t.columns.map((c) => [c.name, c.type] as const)),
          foreignKeys: t.columns
            .filter((c) => c.references)
            .map((c) => ({ name: foreignKeyName(t.name, c.name), column: c.name, table: c.references!.table, onDelete: c.references!.onDelete })),
        },
      ]),
    );
    const indexes = new Set(steps.flatMap((s) => (s.kind === 'create_index' ? [s.name] : [])));
    expect(diffSchema(planned, { tables, indexes })).toEqual([]);
  });
  it('adds a missing column, alters a changed type, keeps a column the metadata dropped', () => {
    const deal = planned.find((t) => t.name === 'deal')!;
    const columns = new Map(deal.columns.filter((c) => c.name !== 'title').map((c) => [c.name, c.type] as const));
    columns.set('stage', { base: 'numeric', array: false });
    columns.set('legacy', { base: 'text', array: false });
    const steps = diffSchema([deal], { tables: new Map([['deal', { columns, foreignKeys: [] }]]), indexes: new Set() });
    expect(steps.filter((s) => s.kind === 'add_column').map((s) => s.kind === 'add_column' && s.column.name)).toEqual(['title']);
    expect(steps.filter((s) => s.kind === 'alter_column_type')).toEqual([
      { kind: 'alter_column_type', table: 'deal', column: 'stage', from: { base: 'numeric', array: false }, to: { base: 'text', array: false } },
    ]);
    expect(JSON.stringify(steps)).not.toContain('legacy');
    // Foreign keys added to a table that already exists do not re-check old rows.
    expect(steps.filter((s) => s.kind === 'add_foreign_key').every((s) => s.kind === 'add_foreign_key' && !s.validate)).toBe(true);
  });
  it('drops a stale foreign key before altering the column', () => {
    const deal = planned.find((t) => t.name === 'deal')!;
    const columns = new Map(deal.columns.map((c) => [c.name, c.type] as const));
    const fk = { name: foreignKeyName('deal', 'account'), column: 'account', table: 'acct', onDelete: 'set null' };
    const steps = diffSchema([deal], { tables: new Map([['deal', { columns, foreignKeys: [fk] }]]), indexes: new Set() });
    const kinds = steps.map((s) => s.kind);
    expect(kinds.indexOf('drop_foreign_key')).toBeLessThan(kinds.indexOf('add_foreign_key'));
  });
});

describe('constraints (unique, storage.notNull)', () => {
  const doc = {
    objects: [
      {
        name: 'acct',
        fields: {
          code: { type: 'text', unique: true },
          org_code: { type: 'text', unique: 'organization' },
          tier: { type: 'text', required: true, storage: { notNull: true } },
          note: { type: 'text', required: true },
        },
      },
    ],
  };
  const acct = planTables(graphOf(doc)).tables.find((t) => t.name === 'acct')!;
  const column = (name: string) => acct.columns.find((c) => c.name === name)!;

  it('plans a unique index per unique field (per organization for "organization") and NOT NULL only from storage.notNull', () => {
    expect(acct.indexes.filter((i) => i.unique).map((i) => [i.columns, i.nullSafe])).toEqual([
      [['code'], undefined],
      [['organization_id', 'org_code'], ['organization_id']],
    ]);
    expect(acct.indexes.every((i) => i.name.startsWith(i.unique ? 'uq_' : 'ix_'))).toBe(true);
    // ADR-0113: `required` alone is ObjectStack's write contract; the column stays nullable.
    expect([column('tier').notNull, column('note').notNull]).toEqual([true, undefined]);
  });

  it('tightens after the columns exist and relaxes first; drops what the metadata no longer asks for', () => {
    const columns = new Map(acct.columns.filter((c) => c.name !== 'tier').map((c) => [c.name, c.type] as const));
    columns.set('note', { base: 'text', array: false });
    const stale = 'uq_0000000000000000000000aa';
    const steps = diffSchema([acct], {
      tables: new Map([['acct', { columns, foreignKeys: [], notNull: new Set(['note']), uniques: [stale] }]]),
      indexes: new Set([stale]),
    });
    const kinds = steps.map((s) => `${s.kind}:${'column' in s && typeof s.column === 'string' ? s.column : 'name' in s ? s.name : ''}`);
    expect(kinds.filter((k) => !k.startsWith('create_index:ix_'))).toEqual([
      'drop_not_null:note',
      `drop_index:${stale}`,
      'add_column:',
      'set_not_null:tier',
      ...acct.indexes.filter((i) => i.unique).map((i) => `create_index:${i.name}`),
    ]);
  });
});
