import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blueprintAgent, evalCaseOf, loadGoldenCase, loadGoldenCases } from '@bvl/eval-runner';
import { dropTenant, openPlatform, platformOptionsFromEnv } from '@bvl/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../main.ts';
import { recordingIo } from '../test-io.ts';

// `bvl eval` in-process, on PGlite under a temporary cwd (<cwd>/.bvl/data), or on PostgreSQL when
// DATABASE_URL is set. Each test's batches have a suite of their own, so baselines stay within it.
const GOLDEN = join(import.meta.dirname, '../../../../evals/golden');
const env: Record<string, string> = process.env.BVL_TEST_ENGINE === 'postgres' && process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {};
let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'bvl-eval-'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

const bvl = async (...argv: string[]) => {
  const io = recordingIo(cwd, env);
  const code = await main(argv, io);
  return { code, out: io.out(), err: io.err() };
};
const suite = () => `cli-${randomBytes(4).toString('hex')}`;

describe('bvl eval: usage', () => {
  it('is listed by bvl --help and explains itself with --help', async () => {
    expect((await bvl('--help')).out).toMatch(/eval .*golden suite[\s\S]*eval-worker .*queue/);
    const help = await bvl('eval', '--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('usage: bvl eval [--agent blueprint|openai[,…]] [--model a,b]');
    expect(help.out).toContain('bvl eval show <batch> [--case c');
    expect(help.out).toContain('bvl eval add-case --from-session <id>');
    expect((await bvl('eval-worker', '--help')).out).toContain('usage: bvl eval-worker');
  });

  it.each([
    [['--agent', 'gpt'], /unknown agent "gpt"; this build has: blueprint/],
    [['--cases', 'crm,nope'], /--cases names "nope", not in .*golden \(it has: crm, /],
    [['--epochs', '0'], /--epochs must be a whole number from 1 to 100/],
    [['--min-pass', '1.5'], /--min-pass must be a number from 0 to 1/],
    [['--defects', 'some'], /--defects must be one of all, fixer, agent, none/],
    [['--format', 'sarif'], /--format takes pretty, json, junit \(got "sarif"\)/],
    [['--resume', '3', '--model', 'm'], /--resume continues a batch with its own plan; drop --model/],
    [['show'], /bvl eval show needs a batch id/],
    [['show', '1', '--epoch', '2'], /--epoch narrows the attempts of a --case/],
    [['--epoch', '2'], /unknown flag --epoch for bvl eval; did you mean --epochs\?/],
    [['--resume', '3', '--cases', 'crm'], /--resume continues a batch with its own plan; drop --cases/],
    [['--wait'], /--wait, --schedule and --unschedule go with --queue/],
    [['--cases-dir', 'no/such/dir'], /the golden cases cannot be loaded:[\s\S]*no\/such\/dir: cannot be read: ENOENT/],
    [['extra'], /unexpected argument "extra"/],
    [['report', '--batch', '1'], /needs -o <file.html>/],
    [['add-case', '--name', 'x'], /needs --from-session <id>/],
  ])('bvl eval %j exits 2 with one clear line', async (args, message) => {
    const sub = args[0] === 'report' || args[0] === 'add-case' || args[0] === 'show';
    const r = await bvl('eval', ...(sub ? args : ['--cases-dir', GOLDEN, ...args]));
    expect(r.err).toMatch(message);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
  });

  it('the queue needs PostgreSQL', async () => {
    const io = recordingIo(cwd, {});
    expect(await main(['eval', '--queue', '--cases-dir', GOLDEN], io)).toBe(2);
    expect(io.err()).toMatch(/the eval queue needs PostgreSQL: set DATABASE_URL/);
    const w = recordingIo(cwd, {});
    expect(await main(['eval-worker'], w)).toBe(2);
    expect(w.err()).toMatch(/needs PostgreSQL/);
  });
});

describe('bvl eval: runs, compares, reports', () => {
  it('prints { batch, cases, pass, fail, error, baseline } — null first, then the previous batch — and exits 100 below --min-pass', async () => {
    const name = suite();
    const first = await bvl('eval', '--cases-dir', GOLDEN, '--cases', 'helpdesk', '--suite', name, '--format', 'json');
    expect(first.code).toBe(0);
    const a = JSON.parse(first.out);
    expect(a).toMatchObject({
      agent: 'blueprint',
      suite: name,
      complete: true,
      attempts: 4,
      pass: 3,
      fail: 1,
      error: 0,
      limit: 0,
      passRate: 0.75,
      baseline: null,
    });
    expect(a.cases.map((c: { variant: string; status: string }) => `${c.variant}:${c.status}`)).toEqual([
      'clean:pass',
      'inert-priority:fail',
      'urgent-view-type-list:pass',
      'widget-typos:pass',
    ]);
    const failed = a.cases[1];
    expect(failed.failures).toMatchObject([{ epoch: 1, status: 'fail', stopReason: 'nothing_to_fix', repairRounds: 0 }]);
    expect(failed.failures[0].issues).toContainEqual(expect.objectContaining({ code: 'inert_field', artifact: { type: 'object', name: 'hd_ticket' } }));
    expect(first.err).toMatch(new RegExp(`batch ${a.batch} — 4 of 4 attempts to run`));
    expect(first.err).toMatch(/bvl eval: fail {2}helpdesk\/inert-priority #1/);

    const second = await bvl('eval', '--cases-dir', GOLDEN, '--cases', 'helpdesk', '--suite', name, '--format', 'json', '--min-pass', '0.8');
    expect(second.code).toBe(100);
    expect(second.err).toMatch(/pass rate 75.0% is below --min-pass 80.0%/);
    const b = JSON.parse(second.out);
    expect(b.baseline).toEqual({ batch: a.batch, passRate: 0.75, currentPassRate: 0.75, compared: 4, regressed: [], improved: [], added: [], unlike: [] });
    // The one failure is a defect set only a model can repair: expected of the blueprint agent.
    expect(b).toMatchObject({ expectedFail: 1, unexpectedFail: 0, spend: { tokensIn: 0, costUsd: 0 } });

    const pretty = await bvl(
      'eval',
      '--cases-dir',
      GOLDEN,
      '--cases',
      'helpdesk',
      '--defects',
      'none',
      '--suite',
      name,
      '--baseline',
      String(a.batch),
      '--min-pass',
      '1',
    );
    expect(pretty.code).toBe(0);
    expect(pretty.out).toMatch(/✓ helpdesk +clean +1\/1/);
    // Like with like: only the clean entry both batches ran is compared, and the summary says why.
    expect(pretty.out).toContain(
      `baseline batch ${a.batch} (1 entry like with like): pass rate 100.0% → 100.0%\n  unlike: batch ${a.batch} ran defect sets "all", this one "none": only the entries both ran are compared\n  regressed: none`,
    );

    const file = join(cwd, 'report.html');
    const report = await bvl('eval', 'report', '--batch', String(b.batch), '-o', 'report.html');
    expect(report.code).toBe(0);
    expect(report.out).toContain(
      `wrote ${file}: batch ${b.batch}, 4 attempts (pass 3, fail 1, error 0, limit 0), and a page per attempt in ${join(cwd, 'report-attempts')}`,
    );
    const html = await readFile(file, 'utf8');
    expect(html).toContain(`<title>bvl eval — batch ${b.batch}</title>`);
    expect(html).toContain('href="report-attempts/helpdesk.inert-priority.blueprint.1.html"');
    const page = await readFile(join(cwd, 'report-attempts', 'helpdesk.inert-priority.blueprint.1.html'), 'utf8');
    expect(page).toContain('helpdesk / inert-priority #1');
    expect(page).toContain('No transcript recorded for this build session.');
    expect((await bvl('eval', 'report', '--batch', '999999999', '-o', 'x.html')).err).toMatch(/there is no eval batch 999999999/);
  });

  it('add-case --from-session writes a failed session as a golden case that loads', async () => {
    const cases = await loadGoldenCases(GOLDEN);
    const platform = await openPlatform({ ...platformOptionsFromEnv(env, cwd) });
    let session: string;
    const tenant = `cli_rec_${randomBytes(3).toString('hex')}`;
    try {
      const c = evalCaseOf(cases.find((x) => x.name === 'helpdesk')!, 'inert-priority');
      session = (await blueprintAgent().run({ platform, scope: { tenant, package: 'app' }, case: c, signal: new AbortController().signal })).sessionId!;
    } finally {
      await platform.close();
    }
    const dir = join(cwd, 'recorded');
    const r = await bvl('eval', 'add-case', '--from-session', session, '--cases-dir', 'recorded', '--name', 'priority-without-options');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`wrote ${join(dir, 'priority-without-options')}: case "priority-without-options" from session ${session}`);
    const loaded = await loadGoldenCase(join(dir, 'priority-without-options'));
    expect(loaded.origin).toMatchObject({ session, tenant, package: 'app' });
    expect(existsSync(join(dir, 'priority-without-options', 'blueprint.json'))).toBe(true);
    const again = await bvl('eval', 'add-case', '--from-session', session, '--cases-dir', 'recorded', '--name', 'priority-without-options');
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/already exists; choose another name with --name/);
    expect((await bvl('eval', 'add-case', '--from-session', '00000000-0000-4000-8000-000000000000')).err).toMatch(/there is no build session/);
    const cleanup = await openPlatform({ ...platformOptionsFromEnv(env, cwd) });
    await dropTenant(cleanup, tenant);
    await cleanup.close();
  });
});
