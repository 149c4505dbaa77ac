import { collectStack } from '@bvl/metadata';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, uniqueTenant } from '../test/test-platform.ts';
import { tenantSchema } from './identifier.ts';
import { openPlatform, type Platform } from './open-platform.ts';
import { discardDrafts, stageDrafts } from './run-drafts.ts';
import { withPackageLock } from './run-package-lock.ts';
import { type PublishResult, publishPackage } from './run-publish.ts';
import { dropTenant } from './run-tenant.ts';

// Many publishes at once, as a service runs them: one pool, every publish on its own pinned
// connection under its package lock (as bvl publish and publishBuild do).
describe.runIf(ENGINE === 'postgres')('concurrent publishes (PostgreSQL)', () => {
  let platform: Platform;
  const tenants = Array.from({ length: 4 }, (_, i) => uniqueTenant(`cc${i}`));
  beforeAll(async () => {
    platform = await openPlatform({ databaseUrl: process.env.DATABASE_URL, maxConnections: 24 });
  });
  afterAll(async () => {
    for (const t of tenants) await dropTenant(platform, t);
    await platform.close();
  });

  /** A package's stack: its own object (with a user field, so sys_user is needed), a seed, and optionally the contested object. */
  const stackOf = (pkg: string, contested: boolean) =>
    collectStack(
      {
        objects: [
          { name: `obj_${pkg}`, fields: { name: { type: 'text' }, owner: { type: 'user' } } },
          ...(contested ? [{ name: 'shared', fields: { name: { type: 'text' }, by: { type: 'text', defaultValue: pkg } } }] : []),
        ],
        data: [{ object: `obj_${pkg}`, externalId: 'name', records: [{ name: `${pkg}-1` }, { name: `${pkg}-2` }] }],
      },
      { draft: true },
    );

  it('16 at once, mixed packages and tenants, two packages racing for one object: one owner, no spurious failure', async () => {
    const runs = tenants.flatMap((tenant, ti) =>
      ['p_a', 'p_b', 'p_c', 'p_d'].map((pkg) => ({ tenant, pkg, contested: ti === 0 && (pkg === 'p_a' || pkg === 'p_b') })),
    );
    expect(runs).toHaveLength(16);
    const results: PublishResult[] = await Promise.all(
      runs.map(({ tenant, pkg, contested }) =>
        withPackageLock(platform, { tenant, package: pkg }, async (pinned) => {
          await discardDrafts(pinned, { tenant, package: pkg });
          await stageDrafts(pinned, { tenant, package: pkg }, stackOf(pkg, contested));
          return publishPackage(pinned, { tenant, package: pkg });
        }),
      ),
    );
    const outcomes = results.map((r, i) => [runs[i]!.tenant === tenants[0] ? runs[i]!.pkg : 'other', r.outcome]);
    // Nothing failed: every publish either published or was refused for ownership.
    expect(results.filter((r) => r.outcome === 'failed')).toEqual([]);
    const contested = results.filter((_, i) => runs[i]!.contested);
    expect(contested.map((r) => r.outcome).sort()).toEqual(['published', 'refused']);
    const winner = runs.find((r, i) => r.contested && results[i]!.outcome === 'published')!.pkg;
    const loser = contested.find((r) => r.outcome === 'refused')!;
    expect(loser.outcome === 'refused' && loser.issues.map((i) => [i.code, i.artifact.name, i.message])).toEqual([
      [
        'duplicate_artifact',
        'shared',
        `object "shared" is already published by package "${winner}" of this tenant; package "${winner === 'p_a' ? 'p_b' : 'p_a'}" cannot publish a second one.`,
      ],
    ]);
    expect(outcomes.filter(([who]) => who === 'other').every(([, o]) => o === 'published')).toBe(true);

    // One owner in the store, and its table carries the owner's default.
    const owners = await platform.db
      .selectFrom('bvl.metadata_items')
      .select(['package'])
      .where('tenant_id', '=', tenants[0]!)
      .where('type', '=', 'object')
      .where('name', '=', 'shared')
      .where('state', '=', 'active')
      .execute();
    expect(owners).toEqual([{ package: winner }]);
    const dflt = await sql<{ d: string }>`
      select pg_get_expr(d.adbin, d.adrelid) as d from pg_catalog.pg_attrdef d
      join pg_catalog.pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum
      where d.adrelid = ${`${tenantSchema(tenants[0]!)}.shared`}::regclass and a.attname = 'by'`.execute(platform.db);
    expect(dflt.rows[0]?.d).toBe(`'${winner}'::text`);

    // Every tenant has its platform tables once and every published package its rows.
    for (const tenant of tenants) {
      const tables = await sql<{ t: string }>`select tablename as t from pg_catalog.pg_tables where schemaname = ${tenantSchema(tenant)} order by 1`.execute(
        platform.db,
      );
      const names = tables.rows.map((r) => r.t);
      expect(names.filter((n) => n === 'sys_user')).toHaveLength(1);
      for (const pkg of ['p_a', 'p_b', 'p_c', 'p_d']) {
        const published = results[runs.findIndex((r) => r.tenant === tenant && r.pkg === pkg)]!;
        if (published.outcome !== 'published') continue;
        expect(published.seedApplied).toMatchObject({ success: true, inserted: 2 });
        const rows = await sql<{ n: number }>`select count(*)::int as n from ${sql.id(tenantSchema(tenant), `obj_${pkg}`)}`.execute(platform.db);
        expect(rows.rows[0]?.n).toBe(2);
      }
    }
  });
});
