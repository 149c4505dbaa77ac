import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Script, type ScriptedLlm, type ScriptStep, startScriptedLlm } from '@bvl/build-agent/testing';
import { dropTenant, openPlatform } from '@bvl/platform';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../cli-io.ts';
import { main } from '../main.ts';
import { recordingIo } from '../test-io.ts';

// `bvl build` in-process through main(), against a scripted OpenAI-compatible endpoint (a real
// node:http server), on PGlite under a temporary cwd — or on PostgreSQL when DATABASE_URL is set.
const EXAMPLE = join(import.meta.dirname, '../../../../examples/expense-tracker');
const db: { DATABASE_URL?: string } = process.env.BVL_TEST_ENGINE === 'postgres' && process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {};
let cwd: string;
let stack: string;
let llm: ScriptedLlm | undefined;
const tenantsMade: string[] = [];
const tenant = () => {
  const t = `cli_${process.pid}_${randomBytes(3).toString('hex')}`;
  tenantsMade.push(t);
  return t;
};

/** The example app with the agent's drafts over it, as one stack file (incidents #1, #2, #6). */
async function writeAppWithDrafts(file: string): Promise<void> {
  const read = async (dir: string) => {
    const out: Record<string, unknown[]> = {};
    for (const [sub, key] of [
      ['objects', 'objects'],
      ['views', 'views'],
      ['dashboards', 'dashboards'],
      ['datasets', 'datasets'],
      ['apps', 'apps'],
      ['seeds', 'data'],
    ] as const) {
      const names = existsSync(join(dir, sub)) ? (await readdir(join(dir, sub))).sort() : [];
      out[key] = await Promise.all(names.map(async (n) => JSON.parse(await readFile(join(dir, sub, n), 'utf8'))));
    }
    return out;
  };
  const app = await read(join(EXAMPLE, 'app'));
  const drafts = await read(join(EXAMPLE, 'drafts'));
  await writeFile(file, JSON.stringify({ ...app, dashboards: drafts.dashboards, apps: drafts.apps, views: [...app.views!, ...drafts.views!] }));
}

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'bvl-build-'));
  stack = join(cwd, 'app-with-drafts.json');
  await writeAppWithDrafts(stack);
});
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});
afterAll(async () => {
  if (db.DATABASE_URL) {
    const p = await openPlatform({ databaseUrl: db.DATABASE_URL });
    for (const t of tenantsMade) await dropTenant(p, t);
    await p.close();
  }
  await rm(cwd, { recursive: true, force: true });
});

async function bvl(args: string[], script: Script | undefined, extra: { env?: Record<string, string>; isTty?: boolean } = {}) {
  if (script) llm = await startScriptedLlm(script);
  const endpoint = llm ? { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: 'sk-test', BVL_MODEL: 'gpt-4o-mini' } : {};
  const io = { ...recordingIo(cwd, { ...db, ...endpoint, ...extra.env }), isTty: extra.isTty ?? false };
  const code = await main(['build', ...args], io);
  return { code, out: io.out(), err: io.err(), json: () => JSON.parse(io.out()) };
}

const call = (tool: string, args?: unknown): ScriptStep => ({ calls: [{ tool, args }] });
/** The model's repair of incident #1: widget budget_left reads the dataset that exists. */
const repair: ScriptStep = {
  calls: [
    {
      tool: 'stage_draft',
      args: {
        type: 'dashboard',
        name: 'exp_spending',
        body: {
          name: 'exp_spending',
          label: 'Spending',
          columns: 12,
          dateRange: { field: 'spent_on', defaultRange: 'last_90_days', allowCustomRange: true },
          widgets: [
            { id: 'total', type: 'metric', title: 'Total spent', dataset: 'exp_expense_metrics', values: ['total_amount'] },
            { id: 'by_status', type: 'bar', title: 'By status', dataset: 'exp_expense_metrics', dimensions: ['status'], values: ['expense_count'] },
            { id: 'budget_left', type: 'metric', title: 'Approved', dataset: 'exp_expense_metrics', values: ['approved_amount'] },
          ],
        },
      },
    },
  ],
};

describe('bvl build', { timeout: 120_000 }, () => {
  it('without an endpoint says so in one line and exits 2, touching no database', async () => {
    const r = await bvl(['Track expenses'], undefined, { env: { OPENAI_BASE_URL: '', OPENAI_API_KEY: '' } });
    expect(r.code).toBe(EXIT.cannotRun);
    expect(r.err).toBe('bvl: no model endpoint configured: set OPENAI_BASE_URL (an OpenAI-compatible /v1 URL) or OPENAI_API_KEY, and BVL_MODEL\n');
    expect(r.out).toBe('');
    expect(existsSync(join(cwd, '.bvl'))).toBe(false);
  });

  it('--help prints its usage', async () => {
    const r = await bvl(['--help'], undefined);
    expect(r.code).toBe(EXIT.clean);
    expect(r.out).toMatch(/^usage: bvl build "<prompt>" \[--tenant t\]/);
  });

  const usage: Array<[string[], RegExp]> = [
    [[], /^bvl: missing the prompt\nusage: bvl build "<prompt>"/],
    [['a', 'b'], /^bvl: expected one prompt, got 2 \(quote it\)/],
    [['x', '--max-rounds=-1'], /^bvl: --max-rounds must be an integer from 0 to 50 \(got "-1"\)\n$/],
    [['x', '--max-rounds', '51'], /^bvl: --max-rounds must be an integer from 0 to 50 \(got "51"\)\n$/],
    [['x', '--budget-usd', 'lots'], /^bvl: --budget-usd must be a positive number of US dollars \(got "lots"\)\n$/],
    [['x', '--budget-tokens', '1.5'], /^bvl: --budget-tokens must be a positive integer/],
    [['x', '--format', 'sarif'], /^bvl: --format must be pretty or json \(got "sarif"\)\n$/],
    [['x', '--tenant', 'Bad Tenant'], /^bvl: --tenant "Bad Tenant" /],
    [['x', '--from', 'nowhere.json'], /^bvl: cannot read nowhere.json: no such file or directory\n$/],
    [[`${'x'.repeat(20_001)}`], /^bvl: the prompt is 20001 characters, over the 20000-character limit\n$/],
  ];
  it.each(usage)('bad input %j is one clear line and exit 2', async (args, err) => {
    const r = await bvl(args, [], {});
    expect(r.code).toBe(EXIT.cannotRun);
    expect(r.err).toMatch(err);
    expect(r.out).toBe('');
  });

  it('a USD budget for a model with no known price cannot run', async () => {
    const r = await bvl(['x', '--budget-usd', '1'], [], { env: { BVL_MODEL: 'my-local-model' } });
    expect(r.code).toBe(EXIT.cannotRun);
    expect(r.err).toBe('bvl: a USD budget needs the price of model "my-local-model": add it to BVL_PRICES (USD per million tokens)\n');
  });

  it('--from an app the loader cannot read is refused before building', async () => {
    const broken = join(cwd, 'broken.json');
    await writeFile(broken, JSON.stringify({ objects: [{ name: 'a', fields: {} }], views: ['grid'] }));
    const r = await bvl(['x', '--from', broken], [], {});
    expect(r.code).toBe(EXIT.cannotRun);
    expect(r.err).toMatch(/^bvl: --from .*broken.json: 1 artifact\(s\) cannot be loaded, so the app cannot be staged as it is \(first: view views\[0\]: /);
  });

  it('--from an app with defects: the agent repairs, bvl publishes; --format json prints the report, exit 0', async () => {
    const t = tenant();
    const r = await bvl(
      ['Track team expenses with a spending dashboard', '--from', stack, '--tenant', t, '--package', 'exp', '--format', 'json'],
      [call('verify_build'), repair, call('verify_build'), call('publish'), { json: { verdict: 'pass', findings: [] } }],
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(EXIT.clean);
    const out = r.json();
    expect(Object.keys(out)).toEqual(['ok', 'published', 'session', 'issues', 'card', 'summary', 'usage', 'cost']);
    expect(out).toMatchObject({ ok: true, published: true, session: { id: expect.any(String), rounds: 3, stopReason: 'clean' }, issues: [] });
    expect(out.card).toMatchObject({ ok: true, published: true, layers: { structure: { status: 'pass' }, widgets: { status: 'pass' } } });
    expect(out.usage).toMatchObject({ turns: 4, tokensIn: 400, tokensOut: 80, priced: true });
    // The intent review's spend is counted apart, under its judge (the builder's model by default).
    expect(out.cost.review).toMatchObject({ judge: 'gpt-4o-mini', tokensIn: 100, tokensOut: 20 });
    expect(llm!.requests.at(-1)!.body.response_format.json_schema.name).toBe('intent_review');
  });

  it('an agent that never repairs stops with max_rounds: exit 1, nothing published, the issues and the summary name what remains', async () => {
    const t = tenant();
    const r = await bvl(
      ['Track team expenses', '--from', stack, '--tenant', t, '--max-rounds', '1', '--format', 'json'],
      [call('verify_build'), call('discard_draft', { type: 'app', name: 'exp_app' }), call('verify_build')],
    );
    expect(r.code).toBe(EXIT.errors);
    const out = r.json();
    expect(out).toMatchObject({ ok: false, published: false, session: { rounds: 2, stopReason: 'max_rounds' } });
    expect(out.issues.map((i: any) => [i.code, i.artifact.name, i.path])).toEqual([['dangling_dataset', 'exp_spending', '/widgets/2/dataset']]);
    expect(out.summary).toContain('dangling_dataset on dashboard exp_spending at /widgets/2/dataset; the build stays draft (nothing was published)');
  });

  it('on a terminal: a progress line per round, then the card and the summary', async () => {
    const t = tenant();
    const r = await bvl(
      ['Track team expenses', '--from', stack, '--tenant', t],
      [call('verify_build'), repair, call('verify_build'), call('publish'), { say: 'not json' }],
      { isTty: true },
    );
    expect(r.code).toBe(EXIT.clean);
    expect(r.err.split('\n')).toEqual([
      'round 0 verify: 1 error, 0 warnings · auto-fixed 2 → repair',
      'round 1 verify: 0 errors, 0 warnings · fixed 1 → publish',
      'round 2 publish: 0 errors, 0 warnings → clean',
      'intent review: failed (1 warning)',
      '',
    ]);
    expect(r.out).toMatch(/^✓ structure · ✓ renders · ✓ 9 rows · ✓ 3\/3 widgets return data · ⚠ 1 warning\nsession [0-9a-f-]{36} \(stopped: clean\)/);
    expect(r.out).toContain('intent_mismatch: The intent review could not judge the app against its goal (the answer is not JSON: "not json")');
    expect(r.out).toMatch(
      /published clean after 3 round\(s\); 1 warning\(s\)\nmodel gpt-4o-mini at http:\/\/127\.0\.0\.1:\d+\/v1: 4 turns, 400 tokens in \/ 80 out, \$0\.0001; intent review by gpt-4o-mini: 100 tokens in \/ 20 out\n$/,
    );
  });

  it('Ctrl-C ends the session as cancelled; the build stays draft (exit 1)', async () => {
    const t = tenant();
    const r = await bvl(
      ['Track team expenses', '--from', stack, '--tenant', t, '--format', 'json'],
      [
        call('verify_build'),
        () => {
          process.emit('SIGINT');
          return { hang: true };
        },
      ],
    );
    expect(r.code).toBe(EXIT.errors);
    expect(r.json()).toMatchObject({ ok: false, published: false, session: { rounds: 1, stopReason: 'cancelled' } });
    expect(process.listenerCount('SIGINT')).toBe(0);
  });

  it('--resume goes on with a Ctrl-C cancelled build within its bounds, to clean; its transcript runs on', async () => {
    const t = tenant();
    const first = await bvl(
      ['Track team expenses', '--from', stack, '--tenant', t, '--format', 'json'],
      [
        call('verify_build'),
        () => {
          process.emit('SIGINT');
          return { hang: true };
        },
      ],
    );
    expect(first.json()).toMatchObject({ session: { rounds: 1, stopReason: 'cancelled' } });
    const id = first.json().session.id;
    await llm?.close();
    llm = undefined;
    const r = await bvl(
      ['--resume', id, '--tenant', t, '--format', 'json'],
      [repair, call('verify_build'), call('publish'), { json: { verdict: 'pass', findings: [] } }],
    );
    expect(r.err).toBe('');
    expect(r.code).toBe(EXIT.clean);
    expect(r.json()).toMatchObject({ ok: true, published: true, session: { id, rounds: 3, stopReason: 'clean' } });
    expect(llm!.requests[0]!.body.messages[1].content).toMatch(/^Goal: Track team expenses\n[\s\S]*Resumed: this build was interrupted after 1 round\(s\)/);
    const shown = (await show([id, '--tenant', t, '--format', 'json'])).json();
    expect(shown.transcript.map((x: any) => x.turn)).toEqual(shown.transcript.map((_: unknown, i: number) => i));
    expect(shown.transcript.filter((x: any) => x.role === 'assistant').flatMap((x: any) => x.toolCalls.map((c: any) => c.name))).toEqual([
      'verify_build',
      'stage_draft',
      'verify_build',
      'publish',
    ]);
    // A session that stopped for a reason the loop decided cannot be resumed.
    const again = await bvl(['--resume', id, '--tenant', t], []);
    expect(again.code).toBe(EXIT.cannotRun);
    expect(again.err).toBe(`bvl: session ${id} stopped (clean): only an interrupted or cancelled build can be resumed\n`);
  });

  it('the built binary: a real SIGINT (Ctrl-C) while the model thinks ends the session as cancelled, exit 1', async () => {
    const bin = join(import.meta.dirname, '../../bin/bvl.js');
    let child: ReturnType<typeof spawn> | undefined;
    llm = await startScriptedLlm([
      call('verify_build'),
      () => {
        child?.kill('SIGINT');
        return { hang: true };
      },
    ]);
    child = spawn(process.execPath, [bin, 'build', 'Track team expenses', '--from', stack, '--tenant', tenant(), '--format', 'json'], {
      cwd,
      env: { PATH: process.env.PATH, ...db, OPENAI_BASE_URL: llm.url, BVL_MODEL: 'gpt-4o-mini' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    const [code] = await once(child, 'exit');
    expect(err).toBe('');
    expect(code).toBe(EXIT.errors);
    expect(JSON.parse(out)).toMatchObject({ ok: false, published: false, session: { rounds: 1, stopReason: 'cancelled' } });
  });

  it('an endpoint that refuses every call could not run: exit 2 with one line', async () => {
    const r = await bvl(['Track team expenses', '--tenant', tenant(), '--format', 'json'], [{ status: 401, body: { error: { message: 'bad key' } } }]);
    expect(r.code).toBe(EXIT.cannotRun);
    expect(r.err).toMatch(/^bvl: could not build: the model endpoint http:\/\/127\.0\.0\.1:\d+\/v1 failed after 1 attempt\(s\): 401 bad key\n$/);
    expect(r.json()).toMatchObject({ ok: false, published: false, session: { stopReason: 'endpoint_error' }, error: expect.stringContaining('401 bad key') });
  });

  it('an endpoint that fails every call after the first stops the build as endpoint_error (exit 2), never as cancelled', async () => {
    const failing = { status: 400, body: { error: { message: 'context length exceeded' } } };
    const r = await bvl(['Track team expenses', '--tenant', tenant(), '--from', stack, '--format', 'json'], [call('verify_build'), failing, failing]);
    expect(r.code).toBe(EXIT.cannotRun);
    expect(r.json()).toMatchObject({ ok: false, published: false, session: { rounds: 1, stopReason: 'endpoint_error' } });
    expect(r.json().summary).toMatch(
      /^stopped \(endpoint_error\): the model endpoint .* failed after 1 attempt\(s\): 400 context length exceeded; 1 error\(s\) remain/,
    );
  });

  it('--budget-seconds bounds the build by the wall clock: a model call still thinking is cut off (exit 1, budget)', async () => {
    const r = await bvl(
      ['Track team expenses', '--tenant', tenant(), '--from', stack, '--budget-seconds', '1.5', '--format', 'json'],
      [call('verify_build'), { hang: true }],
    );
    expect(r.code).toBe(EXIT.errors);
    expect(r.json()).toMatchObject({ ok: false, published: false, session: { rounds: 1, stopReason: 'budget' } });
    expect((await bvl(['g', '--budget-seconds', '0'], undefined)).err).toMatch(/--budget-seconds/);
  });
});

/** `bvl session show` after a build, in-process, on the same database. */
async function show(args: string[]) {
  const io = recordingIo(cwd, { ...db });
  const code = await main(['session', 'show', ...args], io);
  return { code, out: io.out(), err: io.err(), json: () => JSON.parse(io.out()) };
}

describe('bvl session show', { timeout: 120_000 }, () => {
  const SECRET = 'sk-live-abcdefghijklmnop123456';
  const leaky: ScriptStep = JSON.parse(JSON.stringify(repair).replace('"Spending"', `"Spending (OPENAI_API_KEY=${SECRET})"`));

  it('after a clean build, --format json holds every turn with its tool calls, tokens and time; no secret is stored', async () => {
    const t = tenant();
    const r = await bvl(
      ['Track team expenses with a spending dashboard', '--from', stack, '--tenant', t, '--format', 'json', '--judge-model', 'gpt-4.1-mini'],
      [call('verify_build'), leaky, call('verify_build'), call('publish'), { json: { verdict: 'pass', findings: [] } }],
    );
    expect(r.code).toBe(EXIT.clean);
    const id = r.json().session.id;
    expect(llm!.requests.at(-1)!.body.model).toBe('gpt-4.1-mini');
    const s = await show([id, '--tenant', t, '--format', 'json']);
    expect(s.err).toBe('');
    expect(s.code).toBe(EXIT.clean);
    const out = s.json();
    expect(Object.keys(out)).toEqual(['session', 'rounds', 'transcript', 'cost']);
    expect(out.session).toMatchObject({ id, stopReason: 'clean' });
    expect(out.rounds.map((x: any) => x.kind)).toEqual(['verify', 'verify', 'publish']);
    // The review's verdict is stored with the round it judged; its spend is apart from the build's.
    expect(out.rounds[2].review).toMatchObject({ judge: 'gpt-4.1-mini', verdict: 'pass', usage: { tokensIn: 100, tokensOut: 20 } });
    expect(out.cost).toMatchObject({ build: { tokensIn: 400, tokensOut: 80 }, review: { tokensIn: 100, tokensOut: 20 } });
    const turns = out.transcript as any[];
    expect(turns.map((x) => [x.turn, x.role, x.stage])).toEqual([
      [0, 'system', 'build'],
      [1, 'user', 'build'],
      [2, 'assistant', 'build'],
      [3, 'assistant', 'build'],
      [4, 'assistant', 'build'],
      [5, 'assistant', 'build'],
      [6, 'assistant', 'review'],
    ]);
    expect(turns[1].content).toContain('Goal: Track team expenses with a spending dashboard');
    const model = turns.filter((x) => x.role === 'assistant' && x.stage === 'build');
    expect(model.map((x) => x.toolCalls.map((c: any) => c.name))).toEqual([['verify_build'], ['stage_draft'], ['verify_build'], ['publish']]);
    for (const x of model) {
      expect(x).toMatchObject({ tokensIn: 100, tokensOut: 20, retries: 0, ms: expect.any(Number) });
      expect(x.toolCalls[0]).toEqual({ id: expect.any(String), name: expect.any(String), arguments: expect.any(String), result: expect.any(String) });
    }
    expect(JSON.parse(model[2].toolCalls[0].result)).toMatchObject({ ok: true });
    expect(model[1].toolCalls[0].arguments).toContain('OPENAI_API_KEY=[redacted]');
    const stored = JSON.stringify(out);
    expect(stored).not.toContain(SECRET);
    expect(stored).not.toContain('sk-test');
    // The readable form names each turn and call.
    const pretty = await show([id, '--tenant', t]);
    expect(pretty.code).toBe(EXIT.clean);
    expect(pretty.out).toContain('transcript (7 turn(s)):');
    expect(pretty.out).toMatch(/#3 assistant · 100 in \/ 20 out · \d+ ms\n {4}→ stage_draft\(/);
    expect(pretty.out).toContain('review (gpt-4.1-mini): pass');
  });

  it('an unknown session is one line and exit 2', async () => {
    const s = await show(['00000000-0000-4000-8000-000000000000', '--tenant', tenant()]);
    expect(s.code).toBe(EXIT.cannotRun);
    expect(s.err).toMatch(/^bvl: unknown session "00000000-0000-4000-8000-000000000000".* in tenant "cli_/);
    expect(s.out).toBe('');
  });
});
