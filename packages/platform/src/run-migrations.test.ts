import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ENGINE, useTestPlatform } from '../test/test-platform.ts';
import type { Platform } from './open-platform.ts';
import { MIGRATIONS } from './run-migrations.ts';

let platform: Platform;
useTestPlatform((p) => {
  platform = p;
});

describe(`migrations (${ENGINE})`, () => {
  it('every migration has run', async () => {
    const ran = await sql<{ name: string }>`select name from bvl.kysely_migration order by name`.execute(platform.db);
    expect(ran.rows.map((r) => r.name)).toEqual(Object.keys(MIGRATIONS).sort());
  });

  // 0010: a package's latest publish (what the next publish reads for unfinished seeds) is found
  // through (tenant_id, package, id), not by walking every tenant's publishes backwards. Scans are
  // turned off so the plan shows which index the query can use: without 0010 it is the primary
  // key's, filtered row by row. (A publish by id is one primary-key probe either way: the planner
  // may rightly pick either index for it, so it is not asserted.)
  it('the latest publish of a package is read through publish_log_by_package', async () => {
    const query = sql`select id from bvl.publish_log where tenant_id = 'a' and package = 'p' order by id desc limit 1`;
    const plan = await platform.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const rows = await sql<Record<string, string>>`explain ${query}`.execute(trx);
      return rows.rows.map((r) => Object.values(r)[0]).join('\n');
    });
    expect(plan).toContain('publish_log_by_package');
    expect(plan).not.toMatch(/Filter:/);
  });
});
