import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGraph, INPUT_LIMITS, readSource } from '@bvl/metadata';
import { createProbeEngine, dropTenant, openPlatform, type Platform, platformOptionsFromEnv, publishPackage, stageDrafts, tenantSchema } from '@bvl/platform';
import { runProbes } from '@bvl/runtime-probes';
import { CORPUS_NAMES, type CorpusName, corpusFile, fixtureFile } from '@bvl/test-support';
import { describeCorpora } from '@bvl/test-support/vitest';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../cli-io.ts';
import { recordingIo } from '../test-io.ts';
import { run as publishCommand } from './publish.ts';

// Runs on PGlite under a temporary cwd (<cwd>/.bvl/data), or on PostgreSQL when DATABASE_URL is
// set. Every test publishes into its own tenant, so parallel runs never share tables.
const EXAMPLE = join(import.meta.dirname, '../../../../examples/expense-tracker');
const env: { DATABASE_URL?: string } = process.env.BVL_TEST_ENGINE === 'postgres' && process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {};
let cwd: string;
const tenantsMade: string[] = [];
const tenant = () => {
  const t = `cli_${process.pid}_${randomBytes(3).toString('hex')}`;
  tenantsMade.push(t);
  return t;
};

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'bvl-publish-'));
});
afterAll(async () => {
  if (env.DATABASE_URL) {
    const p = await openPlatform({ databaseUrl: env.DATABASE_URL });
    for (const t of tenantsMade) await dropTenant(p, t);
    await p.close();
  }
  await rm(cwd, { recursive: true, force: true });
});

async function publish(args: string[], io = recordingIo(cwd, env)) {
  const code = await publishCommand(args, io);
  return { code, io, json: () => JSON.parse(io.out()) };
}
async function stackFile(doc: unknown): Promise<string> {
  const file = join(cwd, `stack-${randomBytes(4).toString('hex')}.json`);
  await writeFile(file, JSON.stringify(doc));
  return file;
}

describe('bvl publish', { timeout: 120_000 }, () => {
  it('the field-service fixture publishes and probes with no runtime issue', () =>
    publishesClean(fixtureFile('field-service'), 'fs', 25, { seeds: 8, views: 27, widgets: 26, objects: 8 }));

  it('refuses while L1/L2 has an error, lists them, and never touches the database', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'bvl-refuse-'));
    const r = await publish([`${EXAMPLE}/app`, '--drafts', `${EXAMPLE}/drafts`, '--format', 'json', '--tenant', tenant()], recordingIo(fresh, {}));
    expect(r.code).toBe(EXIT.errors);
    const out = r.json();
    expect(out).toMatchObject({ ok: false, outcome: 'refused' });
    expect(out.issues.map((i: { code: string }) => i.code)).toEqual(expect.arrayContaining(['dangling_dataset', 'unknown_measure', 'invalid_artifact']));
    expect(out.seedApplied).toBeUndefined();
    expect(existsSync(join(fresh, '.bvl'))).toBe(false);
    await rm(fresh, { recursive: true, force: true });
  });

  it('refuses a seed input over the bounds before any row is written: no database opened', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'bvl-bounds-'));
    const objects = [{ name: 'o', fields: { name: { type: 'text' } } }];
    const app = await stackFile({ objects, data: [{ object: 'o', externalId: 'name', records: [{ name: 'a' }] }] });
    const over = await stackFile({ data: [{ object: 'o', records: Array.from({ length: INPUT_LIMITS.records + 1 }, () => ({})) }] });
    // The reading fails (main turns the SourceError into exit 2) before the database is opened.
    for (const args of [[over], [app, '--drafts', over]]) {
      await expect(publish([...args, '--tenant', tenant()], recordingIo(fresh, {}))).rejects.toThrow(
        `${over} holds 500,001 seed records; bvl reads at most 500,000 per input`,
      );
      expect(existsSync(join(fresh, '.bvl'))).toBe(false);
    }
    await rm(fresh, { recursive: true, force: true });
  });

  const OBJECTS = [
    {
      name: 'exp',
      label: 'Expense',
      fields: {
        title: { type: 'text' },
        amount: { type: 'currency' },
        paid_on: { type: 'date' },
        status: {
          type: 'select',
          options: [
            { label: 'Draft', value: 'draft' },
            { label: 'Paid', value: 'paid' },
            { label: 'Archived', value: 'archived' },
          ],
        },
      },
    },
  ];
  const METRICS = {
    name: 'exp_metrics',
    label: 'Metrics',
    object: 'exp',
    dimensions: [{ name: 'status', field: 'status' }],
    measures: [{ name: 'n', aggregate: 'count' }],
  };

  it('incident #3/#5: seed rows that fail to insert give an honest seedApplied and seed_not_applied', async () => {
    const file = await stackFile({
      objects: OBJECTS,
      data: [
        {
          object: 'exp',
          externalId: 'title',
          records: [
            // Dates JavaScript reads (so L1 and ObjectStack's write path take them) that PostgreSQL refuses.
            { title: 'Taxi', paid_on: '2026-02-30' },
            { title: 'Hotel', paid_on: '2026-04-31' },
          ],
        },
      ],
    });
    const r = await publish([file, '--format', 'json', '--tenant', tenant()]);
    expect(r.code).toBe(EXIT.errors);
    const out = r.json();
    expect(out).toMatchObject({ ok: false, outcome: 'published', seedApplied: { success: false, inserted: 0 } });
    expect(out.seedApplied.errors).toEqual([
      { seed: 'exp', object: 'exp', recordIndex: 0, field: 'paid_on', message: 'row not written: date/time field value out of range: "2026-02-30"' },
      { seed: 'exp', object: 'exp', recordIndex: 1, field: 'paid_on', message: 'row not written: date/time field value out of range: "2026-04-31"' },
    ]);
    const [issue] = out.issues;
    expect(issue).toMatchObject({ layer: 'runtime', severity: 'error', code: 'seed_not_applied', artifact: { type: 'seed', name: 'exp' } });
    expect(issue.message).toBe(
      'Seed "exp" has 2 records for object "exp", but the object has no rows after publish. The publish reported: record 0 (field "paid_on"): row not written: date/time field value out of range: "2026-02-30"; record 1 (field "paid_on"): row not written: date/time field value out of range: "2026-04-31".',
    );
  });

  it('incident #4: a widget whose real query returns nothing on a populated object is empty_query, with its SQL', async () => {
    const file = await stackFile({
      objects: OBJECTS,
      datasets: [METRICS],
      dashboards: [
        {
          name: 'spend',
          label: 'Spend',
          widgets: [{ id: 'archived_by_status', type: 'bar', dataset: 'exp_metrics', dimensions: ['status'], values: ['n'], filter: { status: 'archived' } }],
        },
      ],
      data: [
        {
          object: 'exp',
          externalId: 'title',
          records: [
            { title: 'Taxi', amount: 12, status: 'paid' },
            { title: 'Hotel', amount: 90, status: 'draft' },
          ],
        },
      ],
    });
    const t = tenant();
    const r = await publish([file, '--format', 'json', '--tenant', t]);
    expect(r.code).toBe(EXIT.errors);
    const out = r.json();
    expect(out.seedApplied).toMatchObject({ success: true, inserted: 2 });
    expect(out.issues).toHaveLength(1);
    expect(out.issues[0]).toMatchObject({
      code: 'empty_query',
      artifact: { type: 'dashboard', name: 'spend' },
      ref: { type: 'dashboard', name: 'spend', member: 'archived_by_status' },
      path: '/widgets/0',
    });
    expect(out.issues[0].message).toContain(
      `while object "exp" has 2 rows: the widget renders empty. SQL: select "exp"."status" as "status", (count(*))::int as "n" from "${tenantSchema(t)}"."exp" as "exp" where "exp"."status" = $1`,
    );
    expect(out.issues[0].message).toContain('with parameters ["archived",1000]');
  });

  it('incident #5 (view): a view whose sort column is missing in the table is view_read_failed', async () => {
    const t = tenant();
    const doc = {
      objects: OBJECTS,
      views: [
        { list: { type: 'grid', data: { provider: 'object', object: 'exp' }, columns: ['title', 'amount'], sort: [{ field: 'amount', order: 'desc' }] } },
      ],
      data: [{ object: 'exp', externalId: 'title', records: [{ title: 'Taxi', amount: 12 }] }],
    };
    expect((await publish([await stackFile(doc), '--tenant', t])).code).toBe(EXIT.clean);
    // Alter the table under the published view: the metadata still has the field, the column is gone.
    const platform: Platform = await openPlatform(platformOptionsFromEnv(env, cwd));
    try {
      await sql`alter table ${sql.id(tenantSchema(t), 'exp')} drop column amount`.execute(platform.db);
      const set = await readSource(await stackFile(doc));
      const { graph } = buildGraph(set);
      const report = await runProbes({ engine: createProbeEngine(platform, { tenant: t, graph }), graph });
      expect(report.issues.map((i) => [i.code, i.artifact.name])).toEqual([['view_read_failed', 'exp.default']]);
      expect(report.issues[0]!.message).toMatch(
        /^View "exp.default" cannot read its first page from object "exp": column "amount" does not exist\. The renderer runs this read \(columns title, amount; sort amount desc; limit 1\)/,
      );
      expect(report.checked).toMatchObject({ views: 1, seeds: 1 });
      // Republishing the same metadata restores the column (publish converges the table to the metadata).
      await stageDrafts(platform, { tenant: t, package: 'default' }, set);
      expect((await publishPackage(platform, { tenant: t, package: 'default' })).outcome).toBe('published');
      expect((await runProbes({ engine: createProbeEngine(platform, { tenant: t, graph }), graph })).issues).toEqual([]);
    } finally {
      await platform.close();
    }
  });

  it.skipIf(Boolean(env.DATABASE_URL))(
    'embedded database: --data-dir places it, progress names each long step, runtime issues point into the file',
    async () => {
      const dataDir = join(cwd, `data-${randomBytes(3).toString('hex')}`);
      // A date that parses but does not exist: only the database refuses it, after publish.
      const file = await stackFile({ objects: OBJECTS, data: [{ object: 'exp', externalId: 'title', records: [{ title: 'x', paid_on: '2026-02-30' }] }] });
      const io = recordingIo(cwd, { BVL_PROGRESS: '1', BVL_DATA_DIR: join(cwd, 'not-this-one') });
      const r = await publish([file, '--data-dir', dataDir, '--tenant', tenant(), '--format', 'json'], io);
      expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
      expect(existsSync(join(cwd, 'not-this-one'))).toBe(false);
      expect(
        io
          .err()
          .split('\n')
          .map((l) => l.replace(/ \(\d+\.\d s\)$/, '')),
      ).toEqual([
        `✓ starting the embedded database (PGlite) at ${dataDir}`,
        '✓ preparing the bvl schema',
        '✓ publishing 2 artifacts: metadata, tables, seeds',
        '✓ probing the published app (seeds, views, widgets)',
        '',
      ]);
      const [issue] = r.json().issues;
      expect(issue).toMatchObject({ code: 'seed_not_applied', location: { file, pointer: '/data/0', line: 1 } });
    },
  );

  it('prints a pretty summary and SARIF', async () => {
    const t = tenant();
    const pretty = await publish([`${EXAMPLE}/app`, '--tenant', t]);
    expect(pretty.code).toBe(EXIT.clean);
    expect(pretty.io.out()).toMatch(
      /^no issues\npublished 14 artifacts of package "default" to tenant "cli_[0-9a-f_]+" \(schema t_cli_[0-9a-f_]+\) on .+\nseeds: 9 inserted, 0 updated, 0 skipped, 0 errors\n/,
    );
    expect(pretty.io.out()).toContain('probes checked: seeds 3/3, views 5/5, widgets 4/4, objects 3/3');
    const file = await stackFile({ objects: OBJECTS, data: [{ object: 'exp', externalId: 'title', records: [{ title: 'x', paid_on: '2026-02-30' }] }] });
    const sarif = await publish([file, '--format', 'sarif', '--tenant', tenant()]);
    expect(sarif.code).toBe(EXIT.errors);
    expect(sarif.json().runs[0].results.map((r: { ruleId: string; level: string }) => [r.ruleId, r.level])).toEqual([['seed_not_applied', 'error']]);
  });

  it('concurrent publishes of one package each publish and report exactly their own stack (PGlite: the second waits for nothing, it is refused)', async () => {
    const t = tenant();
    const a = await stackFile({ objects: [{ name: 'alpha', fields: { name: { type: 'text' } } }], data: [{ object: 'alpha', records: [{ name: 'a1' }] }] });
    const b = await stackFile({
      objects: [{ name: 'beta', fields: { name: { type: 'text' } } }],
      data: [{ object: 'beta', records: [{ name: 'b1' }, { name: 'b2' }] }],
    });
    const [ra, rb] = await Promise.all([publish([a, '--tenant', t, '--format', 'json']), publish([b, '--tenant', t, '--format', 'json'])]);
    if (env.DATABASE_URL) {
      // PostgreSQL: the package lock makes "replace the drafts, publish them" one step per run.
      expect([ra.json().outcome, rb.json().outcome]).toEqual(['published', 'published']);
      expect([ra.json().seedApplied.inserted, rb.json().seedApplied.inserted]).toEqual([1, 2]);
      expect([ra.json().published, rb.json().published]).toEqual([2, 2]);
    } else {
      // PGlite is single-process: one run holds the data folder and the other is refused, clearly.
      const [won, lost] = ra.code === EXIT.clean ? [ra, rb] : [rb, ra];
      expect(won.json().outcome).toBe('published');
      expect(lost.code).toBe(EXIT.cannotRun);
      expect(lost.io.err()).toMatch(/^bvl: cannot open the database: PGlite at .+ is in use by process \d+/);
    }
  });

  it('a new --package one typo from a package the tenant has gets a did-you-mean; the publish then refuses the duplicates', async () => {
    const t = tenant();
    const first = await publish([`${EXAMPLE}/app`, '--tenant', t, '--package', 'expense', '--format', 'json']);
    expect(first.json().outcome).toBe('published');
    expect(first.io.err()).toBe('');
    const typo = await publish([`${EXAMPLE}/app`, '--tenant', t, '--package', 'expnse', '--format', 'json']);
    expect(typo.io.err()).toBe(
      `bvl: warning: package "expnse" is new in tenant "${t}"; did you mean --package expense? (the tenant has "expense"; this publish creates "expnse")\n`,
    );
    expect(typo.json().notices).toEqual([expect.objectContaining({ message: expect.stringContaining('did you mean --package expense?') })]);
    // The same objects belong to "expense": the misspelt package cannot take them.
    expect(typo.json().outcome).toBe('refused');
    expect(typo.json().issues.map((i: { code: string }) => i.code)).toContain('duplicate_artifact');
    // The package itself, and a name nothing is close to, get no such warning.
    expect((await publish([`${EXAMPLE}/app`, '--tenant', t, '--package', 'expense', '--format', 'json'])).io.err()).toBe('');
    const other = await publish([
      await stackFile({ objects: [{ name: 'zeta', fields: { name: { type: 'text' } } }] }),
      '--tenant',
      t,
      '--package',
      'inventory',
    ]);
    expect(other.io.err()).toBe('');
  });

  it('a lookup to an object another package of the tenant published: the CLI publishes it as the HTTP API does', async () => {
    const core = await stackFile({
      objects: [{ name: 'crm_account', fields: { name: { type: 'text' } } }],
      data: [{ object: 'crm_account', records: [{ name: 'Acme' }] }],
    });
    const sales = {
      objects: [{ name: 'crm_deal', fields: { name: { type: 'text' }, account: { type: 'lookup', reference: 'crm_account' } } }],
      views: [{ name: 'crm_deal', list: { type: 'grid', data: { provider: 'object', object: 'crm_deal' }, columns: ['name', 'account.name'] } }],
      data: [{ object: 'crm_deal', records: [{ name: 'Big deal', account: 'Acme' }] }],
    };
    // The CLI, one run per package.
    const viaCli = tenant();
    expect((await publish([core, '--tenant', viaCli, '--package', 'core', '--format', 'json'])).json().outcome).toBe('published');
    const cli = await publish([await stackFile(sales), '--tenant', viaCli, '--package', 'sales', '--format', 'json']);
    // The API, over the same database, one package at a time.
    const viaApi = tenant();
    const platform = await openPlatform(platformOptionsFromEnv(env, cwd));
    let api: { status: number; body: { outcome: string; issues: Array<{ code: string; artifact: { name: string }; path?: string }> } };
    try {
      const { createApp, createToken } = await import('@bvl/api');
      const app = createApp({ platform, logger: { info() {}, error() {} }, version: 'test' });
      const { token } = await createToken(platform, { tenant: viaApi });
      const send = async (path: string, init: { method: string; json?: unknown }) => {
        const r = await app.request(`/v1/tenants/${viaApi}/packages/${path}`, {
          method: init.method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
        });
        return { status: r.status, body: (await r.json()) as any };
      };
      await send('core/drafts/object/crm_account', { method: 'PUT', json: { name: 'crm_account', fields: { name: { type: 'text' } } } });
      await send('core/drafts/seed/crm_account', { method: 'PUT', json: { object: 'crm_account', records: [{ name: 'Acme' }] } });
      expect((await send('core/publish', { method: 'POST', json: {} })).body.outcome).toBe('published');
      await send('sales/drafts/object/crm_deal', { method: 'PUT', json: sales.objects[0] });
      await send('sales/drafts/view/crm_deal', { method: 'PUT', json: sales.views[0] });
      await send('sales/drafts/seed/crm_deal', { method: 'PUT', json: sales.data[0] });
      api = await send('sales/publish', { method: 'POST', json: {} });
    } finally {
      await platform.close();
    }
    const summary = (issues: Array<{ code: string; artifact: { name: string }; path?: string }>) =>
      issues.map((i) => `${i.code} ${i.artifact.name} ${i.path ?? ''}`).sort();
    expect(api.status).toBe(200);
    expect(api.body.outcome).toBe('published');
    expect(cli.json()).toMatchObject({ ok: true, outcome: 'published', seedApplied: { inserted: 1, errors: [] } });
    expect(cli.code).toBe(EXIT.clean);
    expect(summary(cli.json().issues)).toEqual(summary(api.body.issues));
  });

  it('a seed row written without a lookup value that matched no row is a runtime seed_value_dropped, not only a counter', async () => {
    const t = tenant();
    // exp_vendor has no seed (its rows come from elsewhere), so L1 cannot judge the key; the publish can.
    const file = await stackFile({
      objects: [
        { name: 'exp_vendor', fields: { name: { type: 'text' } } },
        { name: 'exp', fields: { title: { type: 'text' }, vendor: { type: 'lookup', reference: 'exp_vendor' } } },
      ],
      data: [{ object: 'exp', externalId: 'title', records: [{ title: 'Taxi', vendor: 'Acme' }, { title: 'Lunch' }] }],
    });
    const r = await publish([file, '--tenant', t, '--format', 'json']);
    const out = r.json();
    expect(out).toMatchObject({ ok: false, outcome: 'published', seedApplied: { inserted: 2 } });
    expect(out.seedApplied.errors).toEqual([expect.objectContaining({ seed: 'exp', recordIndex: 0, field: 'vendor', dropped: true })]);
    const dropped = out.issues.filter((i: { code: string }) => i.code === 'seed_value_dropped');
    expect(dropped).toEqual([
      expect.objectContaining({ layer: 'runtime', severity: 'error', artifact: { type: 'seed', name: 'exp' }, path: '/records/0/vendor' }),
    ]);
    expect(dropped[0].location).toMatchObject({ file: expect.stringMatching(/stack-.*\.json$/), pointer: '/data/0/records/0/vendor' });
    expect(r.code).toBe(EXIT.errors);
  });

  it('exits 2 with one clear line when it cannot run', async () => {
    const missing = await publishCommand(['nope.json'], recordingIo(cwd, env)).catch((e: Error) => e);
    expect(missing).toBeInstanceOf(Error);
    expect((missing as Error).message).toMatch(/cannot read nope.json: no such file or directory/);
    await expect(publishCommand([await stackFile({}), '--tenant', 'Bad Tenant'], recordingIo(cwd, env))).rejects.toThrow(
      /--tenant "Bad Tenant" must be lowercase/,
    );
    const io = recordingIo(cwd, { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    const down = await publishCommand([`${EXAMPLE}/app`, '--tenant', tenant()], io);
    expect(down).toBe(EXIT.cannotRun);
    expect(io.err()).toMatch(/^bvl: cannot open the database: cannot open PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:1\/none: .+\n$/);
  });

  it('goes through main: bad JSON and unknown flags exit 2', async () => {
    const { main } = await import('../main.ts');
    const bad = join(cwd, 'bad.json');
    await writeFile(bad, '{ not json');
    const io = recordingIo(cwd, env);
    expect(await main(['publish', bad], io)).toBe(EXIT.cannotRun);
    expect(io.err()).toMatch(/^bvl: .*bad\.json is not valid JSON/);
    const io2 = recordingIo(cwd, env);
    expect(await main(['publish', bad, '--force'], io2)).toBe(EXIT.cannotRun);
    expect(io2.err()).toMatch(/^bvl: unknown flag --force for bvl publish/);
  });
});

/** A stack publishes and probes clean; checked equals the artifacts the stack holds. */
async function publishesClean(file: string, pkg: string, records: number, probed: { seeds: number; views: number; widgets: number; objects: number }) {
  const r = await publish([file, '--tenant', tenant(), '--package', pkg, '--format', 'json']);
  const out = r.json();
  expect(r.io.err()).toBe('');
  expect(out).toMatchObject({ ok: true, outcome: 'published', seedApplied: { success: true, inserted: records, errors: [] } });
  expect(out.issues.filter((i: { layer: string }) => i.layer === 'runtime')).toEqual([]);
  expect(out.probes.checked).toEqual(probed);
  expect(out.probes.total).toEqual(probed);
  expect(out.probes).toMatchObject({ skipped: [], unavailable: {} });
  expect(out.checked).toMatchObject({ seeds: probed.seeds, views: probed.views, widgets: probed.widgets });
  expect(r.code).toBe(EXIT.clean);
}

describeCorpora('bvl publish on the corpora', () => {
  const corpora: Record<CorpusName, [number, { seeds: number; views: number; widgets: number; objects: number }]> = {
    'app-todo': [8, { seeds: 1, views: 3, widgets: 8, objects: 1 }],
    'app-crm': [28, { seeds: 5, views: 13, widgets: 6, objects: 6 }],
    'app-showcase': [132, { seeds: 19, views: 36, widgets: 37, objects: 25 }],
  };
  it.each(CORPUS_NAMES)('%s publishes and probes with no runtime issue', (name) => publishesClean(corpusFile(name), name, ...corpora[name]));
});
