import { join } from 'node:path';
import { type ArtifactSet, type RawArtifact, readSource } from '@bvl/metadata';
import { latestProbeResult, listDrafts, type Platform, stageDrafts } from '@bvl/platform';
import { openTestPlatform, tenants } from '@bvl/platform/testing';
import { listRounds } from '@bvl/verify-build';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordedRequest, type Script, type ScriptStep, startScriptedLlm } from '../test/scripted-llm.ts';
import { createAgentClient } from './agent-client.ts';
import { AGENT_TOOL_NAMES } from './agent-tools.ts';
import { type BuildBounds, BuildSetupError } from './build-bounds.ts';
import type { PriceTable } from './price-table.ts';
import { type BuildProgress, runBuild } from './run-build.ts';

const EXAMPLE = join(import.meta.dirname, '../../../examples/expense-tracker');
const GOAL = 'Track team expenses by category and status, with a spending dashboard';
let platform: Platform;
let app: ArtifactSet;
let drafts: ArtifactSet;
const made = tenants(() => platform);
beforeAll(async () => {
  platform = await openTestPlatform(() => new Date('2026-03-15T10:00:00Z'));
  app = await readSource(join(EXAMPLE, 'app'), { draft: true });
  drafts = await readSource(join(EXAMPLE, 'drafts'), { draft: true });
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
});

/** The drafts' dashboard (ADR-0038 incidents #1 and #2) with its widgets edited as a model would. */
function dashboard(edit: (widgets: any[]) => void): Record<string, unknown> {
  const body = structuredClone(drafts.artifacts.find((a) => a.type === 'dashboard')!.body) as { widgets: any[] };
  edit(body.widgets);
  return body;
}
const stage = (body: Record<string, unknown>): ScriptStep => ({ calls: [{ tool: 'stage_draft', args: { type: 'dashboard', name: 'exp_spending', body } }] });
const call = (tool: string, args?: unknown): ScriptStep => ({ calls: [{ tool, args }] });
/** Widget budget_left bound to the dataset that exists: the repair incident #1 needs. */
const repaired = (w: any[]) => {
  w[0].values = ['total_amount'];
  w[2] = { ...w[2], dataset: 'exp_expense_metrics', values: ['approved_amount'] };
};
const codes = (issues: readonly { code: string; artifact: { name: string }; path?: string; severity: string }[]) =>
  issues.filter((i) => i.severity === 'error').map((i) => [i.code, i.artifact.name, i.path]);

/** Runs the agent against a scripted endpoint on a package holding the example app + the agent's drafts (unpublished). */
async function build(
  script: Script,
  options: {
    bounds?: BuildBounds;
    review?: boolean;
    signal?: AbortSignal;
    retries?: number;
    timeoutMs?: number;
    prices?: PriceTable;
    staged?: RawArtifact[];
  } = {},
) {
  const llm = await startScriptedLlm(script);
  const client = createAgentClient({
    baseURL: llm.url,
    apiKey: 'sk-test',
    model: 'gpt-4o-mini',
    retry: { minTimeoutMs: 1, maxTimeoutMs: 4, ...(options.retries !== undefined ? { retries: options.retries } : {}) },
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.prices ? { prices: options.prices } : {}),
  });
  const scope = { tenant: made.next(), package: 'app' };
  await stageDrafts(platform, scope, options.staged ?? [...app.artifacts, ...drafts.artifacts]);
  const progress: BuildProgress[] = [];
  try {
    const result = await runBuild({
      platform,
      scope,
      prompt: GOAL,
      client,
      bounds: options.bounds,
      signal: options.signal,
      review: options.review ?? false,
      onProgress: (e) => progress.push(e),
    });
    return { result, llm, progress, scope };
  } finally {
    await llm.close();
  }
}

/** The prompt's tokens as bvl estimates them (JSON characters of messages and tools / 4): what an honest scripted endpoint reports. */
const promptTokens = (req: RecordedRequest) => Math.ceil(JSON.stringify([req.body.messages, req.body.tools]).length / 4);

/** The build stayed draft: nothing was published, the drafts are still there. */
async function staysDraft(scope: { tenant: string; package: string }) {
  expect(await latestProbeResult(platform, scope)).toBeUndefined();
  expect((await listDrafts(platform, scope)).length).toBeGreaterThan(0);
}

describe('runBuild (the built-in agent over a scripted OpenAI-compatible endpoint)', () => {
  it('a build with fixable defects goes clean within the bound and publishes', async () => {
    const { result, llm, progress, scope } = await build([
      call('list_artifacts'),
      call('verify_build'),
      call('get_artifact', { type: 'dashboard', name: 'exp_spending' }),
      // The model edits what get_artifact returned: incident #1's widget gets the dataset that exists.
      (req) => {
        const got = JSON.parse(req.body.messages.at(-1).content);
        const body = structuredClone(got.body);
        body.widgets[2] = { ...body.widgets[2], dataset: 'exp_expense_metrics', values: ['approved_amount'] };
        return stage(body);
      },
      call('verify_build'),
      call('publish'),
    ]);
    expect(result).toMatchObject({ ok: true, published: true, stopReason: 'clean', session: { status: 'stopped', rounds: 3, repairRounds: 1 } });
    expect(result.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(result.summary).toBe('published clean after 3 round(s)');
    expect(result.card.published).toBe(true);
    expect(progress.filter((p) => p.kind === 'round').map((p) => [p.kind === 'round' && p.roundKind, p.kind === 'round' && p.next])).toEqual([
      ['verify', 'repair'],
      ['verify', 'publish'],
      ['publish', 'stop'],
    ]);
    // The fixer repaired #2 and #6 in round 0 and said so; the model read it.
    const rounds = await listRounds(platform, { tenant: scope.tenant, id: result.session.id });
    expect(rounds[0]!.fixes.map((f) => f.code)).toEqual(['unknown_measure', 'invalid_artifact']);
    const firstVerify = JSON.parse(llm.requests[2]!.body.messages.at(-1).content);
    expect(firstVerify).toMatchObject({ next: 'repair', errors: 1, fixes: [{ code: 'unknown_measure' }, { code: 'invalid_artifact' }] });
    // The agent reads the answer every MCP client reads: compact issues, each once.
    expect(firstVerify.issues).toEqual([
      expect.objectContaining({
        code: 'dangling_dataset',
        artifact: { type: 'dashboard', name: 'exp_spending' },
        member: 'budget_left',
        path: '/widgets/2/dataset',
      }),
    ]);
    // Every request carries the tools (JSON schema from zod), the model, and the key.
    expect(llm.requests).toHaveLength(6);
    const first = llm.requests[0]!;
    expect(first.authorization).toBe('Bearer sk-test');
    expect(first.body.model).toBe('gpt-4o-mini');
    expect(first.body.tools.map((t: any) => t.function.name)).toEqual(AGENT_TOOL_NAMES);
    expect(first.body.tools.find((t: any) => t.function.name === 'stage_draft').function.parameters).toMatchObject({
      type: 'object',
      required: ['type', 'name', 'body'],
      additionalProperties: false,
    });
    expect(first.body.messages[0].role).toBe('system');
    expect(first.body.messages[1].content).toContain(GOAL);
    // Usage: 6 answered turns at 100 + 20 tokens, all reported to the session.
    expect(result.usage).toMatchObject({ turns: 6, retries: 0, tokensIn: 600, tokensOut: 120, priced: true });
    expect(result.session.usage).toMatchObject({ tokensIn: 600, tokensOut: 120 });
    expect(result.session.usage.costUsd).toBeCloseTo(result.usage.costUsd, 10);
    expect(result.usage.costUsd).toBeCloseTo((600 * 0.15 + 120 * 0.6) / 1e6, 12);
  });

  it('an agent that undoes its fix stops with oscillation; the build stays draft and the report names what remains', async () => {
    const breaksTotal = (w: any[]) => {
      repaired(w);
      w[0].values = ['zzz'];
    };
    const { result, scope } = await build(
      [
        call('verify_build'),
        stage(dashboard(breaksTotal)),
        call('verify_build'),
        stage(dashboard((w) => (w[0].values = ['total_amount']))),
        call('verify_build'),
      ],
      { bounds: { maxRounds: 5 } },
    );
    expect(result).toMatchObject({ ok: false, published: false, stopReason: 'oscillation' });
    expect(codes(result.issues)).toEqual([['dangling_dataset', 'exp_spending', '/widgets/2/dataset']]);
    expect(result.summary).toMatch(/^stopped \(oscillation\): 1 issue\(s\) an earlier round fixed are back/);
    expect(result.summary).toContain('dangling_dataset on dashboard exp_spending at /widgets/2/dataset');
    expect(result.summary).toContain('the build stays draft');
    await staysDraft(scope);
  });

  it('an agent that never fixes stops with max_rounds after 2 repair rounds, and is asked nothing more', async () => {
    const retitled = (title: string) =>
      dashboard((w) => {
        w[0].values = ['total_amount'];
        w[1].title = title;
      });
    const { result, llm, scope } = await build([
      call('verify_build'),
      stage(retitled('one')),
      call('verify_build'),
      stage(retitled('two')),
      call('verify_build'),
      stage(retitled('three')),
    ]);
    expect(result).toMatchObject({ ok: false, published: false, stopReason: 'max_rounds', session: { rounds: 3, repairRounds: 2 } });
    expect(llm.requests).toHaveLength(5);
    expect(codes(result.issues)).toEqual([['dangling_dataset', 'exp_spending', '/widgets/2/dataset']]);
    expect(result.summary).toContain('all 2 repair round(s) are used and 1 error(s) remain');
    await staysDraft(scope);
  });

  it('a token budget stops the build: spent between rounds (no round to decide it), the agent stops the session itself', async () => {
    // The endpoint counts far more prompt tokens than bvl estimated: the budget is spent after the call.
    const usage = { prompt_tokens: 20_000, completion_tokens: 100 };
    const { result, scope } = await build(
      [
        { calls: [{ tool: 'verify_build' }], usage },
        { calls: [{ tool: 'list_artifacts' }], usage },
      ],
      { bounds: { budgetTokens: 12_000 } },
    );
    expect(result).toMatchObject({ published: false, stopReason: 'budget', session: { rounds: 1, usage: { tokensIn: 20_000, tokensOut: 100 } } });
    expect(result.summary).toContain('tokens 20100 > 12000');
    expect(result.summary).toContain('1 error(s) remain: dangling_dataset on dashboard exp_spending at /widgets/2/dataset');
    await staysDraft(scope);
  });

  it('a token budget spent in a round that changed the drafts is decided by that round', async () => {
    const usage = { prompt_tokens: 20_000, completion_tokens: 100 };
    const { result } = await build(
      [
        { ...stage(dashboard((w) => (w[1].title = 'x'))), usage },
        { calls: [{ tool: 'list_artifacts' }], usage },
      ],
      { bounds: { budgetTokens: 12_000 } },
    );
    expect(result).toMatchObject({ published: false, stopReason: 'budget', session: { rounds: 1 } });
    expect(result.card.session?.rounds.map((r) => r.stopReason)).toEqual(['budget']);
  });

  it('budgets are reserved before each call: max_tokens is what is left after the prompt, so a budget is never passed', async () => {
    // A 250-token budget cannot hold the first prompt: no call is made at all (it once ended at 360).
    const tiny = await build([call('verify_build')], { bounds: { budgetTokens: 250 } });
    expect(tiny.llm.requests).toHaveLength(0);
    expect(tiny.result).toMatchObject({ stopReason: 'budget', published: false, usage: { turns: 0, tokensIn: 0, tokensOut: 0 } });
    expect(tiny.result.summary).toMatch(/tokens: 0 used of 250, the next prompt is ~\d+: less than 64 completion tokens left for another call/);
    // A greedy model that always writes all max_tokens allows, and an endpoint that counts the prompt as bvl estimates it.
    const greedy = (req: RecordedRequest): ScriptStep => ({
      calls: [{ tool: 'list_artifacts' }],
      usage: { prompt_tokens: promptTokens(req), completion_tokens: Math.min(req.body.max_tokens ?? 1500, 1500) },
    });
    const { result, llm } = await build(
      Array.from({ length: 10 }, () => greedy),
      { bounds: { budgetTokens: 12_000 } },
    );
    expect(llm.requests.length).toBeGreaterThan(1);
    for (const r of llm.requests) expect(r.body.max_tokens).toBeGreaterThanOrEqual(64);
    expect(llm.requests[0]!.body.max_tokens).toBe(12_000 - promptTokens(llm.requests[0]!));
    expect(result.stopReason).toBe('budget');
    expect(result.usage.tokensIn + result.usage.tokensOut).toBeLessThanOrEqual(12_000);
  });

  it('a USD budget (from a configured price table) reserves max_tokens the same way and is never passed', async () => {
    const greedy = (req: RecordedRequest): ScriptStep => ({
      calls: [{ tool: 'list_artifacts' }],
      usage: { prompt_tokens: promptTokens(req), completion_tokens: Math.min(req.body.max_tokens ?? 1500, 1500) },
    });
    const { result, llm } = await build(
      Array.from({ length: 10 }, () => greedy),
      {
        bounds: { budgetUsd: 0.5 },
        prices: { 'gpt-4o-mini': { input: 20, output: 40 } },
      },
    );
    // $0.50 at $20 per million prompt tokens and $40 per million completion tokens.
    const first = promptTokens(llm.requests[0]!);
    expect(llm.requests[0]!.body.max_tokens).toBe(Math.floor(((0.5 - (first * 20) / 1e6) * 1e6) / 40));
    expect(result.stopReason).toBe('budget');
    expect(result.usage.costUsd).toBeLessThanOrEqual(0.5);
    expect(result.session.usage.costUsd).toBeCloseTo(result.usage.costUsd, 10);
  });

  it('a build whose last turn made it clean is published even though that turn crossed the budget; the overrun is reported', async () => {
    const over = { prompt_tokens: 20_000, completion_tokens: 100 };
    const { result } = await build([call('verify_build'), { ...stage(dashboard(repaired)), usage: over }, call('list_artifacts')], {
      bounds: { budgetTokens: 12_000 },
    });
    expect(result).toMatchObject({ ok: true, published: true, stopReason: 'clean' });
    expect(result.overrun).toMatch(/^tokens \d+ > 12000$/);
    expect(result.summary).toMatch(/^published clean after 3 round\(s\) \(the last turn went over budget: tokens \d+ > 12000\)$/);
  });

  it('--budget-seconds: a wall-clock budget cuts a call in flight off and stops the build as budget', async () => {
    const { result, llm } = await build([call('verify_build'), { hang: true }], { bounds: { budgetMs: 1500 } });
    expect(llm.requests).toHaveLength(2);
    expect(result).toMatchObject({ stopReason: 'budget', published: false, session: { status: 'stopped', rounds: 1 } });
    expect(result.summary).toMatch(/^stopped \(budget\): the session's budget is spent \(wall clock \d+ ms > 1500 ms, a model call was cut off\)/);
  });

  it('an endpoint that fails every call after the first stops the build as endpoint_error, not cancelled', async () => {
    const { result, llm, scope } = await build([call('verify_build'), { status: 500 }, { status: 500 }, { status: 500 }], { retries: 2 });
    expect(llm.requests).toHaveLength(4);
    expect(result).toMatchObject({
      ok: false,
      published: false,
      stopReason: 'endpoint_error',
      session: { status: 'stopped', stopReason: 'endpoint_error', rounds: 1 },
    });
    expect(result.summary).toMatch(/^stopped \(endpoint_error\): the model endpoint http:\/\/127\.0\.0\.1:\d+\/v1 failed after 3 attempt\(s\): 500/);
    await staysDraft(scope);
  });

  it('an abort (Ctrl-C) while the model is thinking ends the session as cancelled', async () => {
    const controller = new AbortController();
    const { result, llm, scope } = await build(
      [
        call('verify_build'),
        () => {
          controller.abort();
          return { hang: true };
        },
      ],
      { signal: controller.signal },
    );
    expect(result).toMatchObject({ ok: false, published: false, stopReason: 'cancelled', session: { status: 'stopped', rounds: 1 } });
    expect(llm.requests).toHaveLength(2);
    expect(codes(result.issues)).toEqual([['dangling_dataset', 'exp_spending', '/widgets/2/dataset']]);
    expect(result.summary).toBe(
      'stopped (cancelled): the build was cancelled; 1 error(s) remain: dangling_dataset on dashboard exp_spending at /widgets/2/dataset; the build stays draft (nothing was published)',
    );
    await staysDraft(scope);
  });

  it('429 and 503 are retried (honouring Retry-After) and the build goes on', async () => {
    const { result, llm, progress } = await build([
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 503, headers: { 'retry-after-ms': '3' } },
      call('verify_build'),
      stage(dashboard(repaired)),
      call('verify_build'),
      call('publish'),
    ]);
    expect(result).toMatchObject({ ok: true, published: true, stopReason: 'clean', usage: { turns: 4, retries: 2 } });
    expect(llm.requests).toHaveLength(6);
    expect(progress.filter((p) => p.kind === 'retry')).toEqual([
      { kind: 'retry', attempt: 2, delayMs: 1, why: 'HTTP 429 (Retry-After 0 ms)' },
      { kind: 'retry', attempt: 3, delayMs: 3, why: 'HTTP 503 (Retry-After 3 ms)' },
    ]);
  });

  it('an endpoint that fails for good ends the build with an error (session endpoint_error, build draft)', async () => {
    const { result, llm, scope } = await build([{ status: 401, body: { error: { message: 'Incorrect API key provided' } } }]);
    expect(llm.requests).toHaveLength(1);
    expect(result).toMatchObject({ ok: false, published: false, stopReason: 'endpoint_error' });
    expect(result.error).toMatch(/^the model endpoint http:\/\/127\.0\.0\.1:\d+\/v1 failed after 1 attempt\(s\): 401 Incorrect API key provided$/);
    expect(result.errorStatus).toBe(401);
    await staysDraft(scope);
    const gaveUp = await build([{ status: 500 }, { status: 500 }, { status: 500 }], { retries: 2 });
    expect(gaveUp.llm.requests).toHaveLength(3);
    expect(gaveUp.result.error).toMatch(/failed after 3 attempt\(s\): 500/);
    expect(gaveUp.result.errorStatus).toBe(500);
  });

  it('an endpoint that keeps answering 429 ends the build with the status as data, whatever its message says', async () => {
    // The OpenAI client words it "429 <the body's message>": no "HTTP 429", no "Too Many Requests".
    const limited = { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'Rate limit reached for gpt-4o-mini' } } };
    const { result, llm } = await build([limited, limited, limited], { retries: 2 });
    expect(llm.requests).toHaveLength(3);
    expect(result).toMatchObject({ ok: false, stopReason: 'endpoint_error', errorStatus: 429 });
    expect(result.error).toMatch(/failed after 3 attempt\(s\): 429 Rate limit reached for gpt-4o-mini$/);
  });

  it('malformed tool calls are answered as tool errors and the loop goes on', async () => {
    const { result, llm } = await build([
      {
        calls: [
          { tool: 'stage_draft', args: '{"type": "dashboard", "name": ' },
          { tool: 'drop_table', args: {} },
          { tool: 'get_artifact', args: { type: 'widget', name: 'x' } },
          { tool: 'publish' },
          { tool: 'get_artifact', args: { type: 'dashboard', name: 'exp_spendin' } },
          { tool: 'retire_artifact', args: { type: 'object', name: 'exp_budget' } },
          { tool: 'stage_draft', args: { type: 'view', name: 'exp_expense', body: { list: 'grid' } } },
        ],
      },
      call('verify_build'),
    ]);
    const errors = llm.requests[1]!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => JSON.parse(m.content).error);
    expect(errors).toEqual([
      expect.stringMatching(/^the arguments of stage_draft are not valid JSON/),
      'unknown tool "drop_table"; the tools are: list_artifacts, get_artifact, stage_draft, discard_draft, retire_artifact, verify_build, apply_fix, publish',
      expect.stringMatching(/^invalid arguments for get_artifact: type: Invalid option/),
      'drafts changed since the last verify_build (or none ran): call verify_build first',
      'no dashboard named "exp_spendin"; did you mean exp_spending?',
      expect.stringMatching(/^retire_artifact failed: nothing to retire: no object "exp_budget" is published/),
      'nothing staged: view exp_expense.default: View "exp_expense.default" is a string ("grid"), not a view object. Write the view as a JSON object with type, data and columns.',
    ]);
    // The loop went on: the model verified next, then ran out of script, and bvl stopped it for no progress.
    expect(llm.requests.length).toBeGreaterThanOrEqual(3);
    expect(result).toMatchObject({ published: false, stopReason: 'no_progress', session: { rounds: 1 } });
    expect(result.summary).toContain('the agent changed nothing in 2 round(s) of turns');
  });

  it('odd tool calls from an endpoint are answered too: object arguments, no id, a non-function call', async () => {
    const raw = (toolCalls: unknown[]) => ({
      raw: {
        id: 'x',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: toolCalls }, finish_reason: 'tool_calls' }],
      },
    });
    const { llm } = await build([
      raw([
        { type: 'function', function: { name: 'get_artifact', arguments: { type: 'dataset', name: 'exp_expense_metrics' } } },
        { id: 'c2', type: 'custom', custom: { name: 'x', input: '' } },
      ]),
      { raw: { id: 'y', object: 'chat.completion', created: 1, model: 'm', choices: [] } },
    ]);
    const sent = llm.requests[1]!.body.messages.slice(-3);
    expect(sent[0]).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_1_0', function: { arguments: '{"type":"dataset","name":"exp_expense_metrics"}' } }, { id: 'c2' }],
    });
    expect(sent[1]).toMatchObject({ role: 'tool', tool_call_id: 'call_1_0' });
    expect(JSON.parse(sent[1].content)).toMatchObject({ type: 'dataset', name: 'exp_expense_metrics', state: 'draft' });
    expect(JSON.parse(sent[2].content).error).toMatch(/^unknown tool "custom tool"/);
  });

  it('an endpoint that answers no choice ends the build with an error', async () => {
    const { result } = await build([{ raw: { id: 'y', object: 'chat.completion', created: 1, model: 'm', choices: [] } }]);
    expect(result).toMatchObject({ stopReason: 'endpoint_error', published: false, error: expect.stringMatching(/answered no choice$/) });
  });

  it('a round is bounded in model turns: bvl verifies for the agent, and stops it for no progress', async () => {
    const { result, llm } = await build(
      Array.from({ length: 20 }, () => call('list_artifacts')),
      { bounds: { maxTurnsPerRound: 2 } },
    );
    expect(result).toMatchObject({ stopReason: 'no_progress', published: false, usage: { turns: 6 }, session: { rounds: 1 } });
    expect(llm.requests).toHaveLength(6);
    const told = llm.requests[2]!.body.messages.at(-1);
    expect(told.role).toBe('user');
    expect(told.content).toMatch(
      /^You used the 2 model turns of this round, so bvl ran verify_build for you: \{"ok":false,"publishable":false,"next":"repair"/,
    );
  });

  it('an agent that ends its turn when verify says publish is published by bvl', async () => {
    const { result } = await build([call('verify_build'), stage(dashboard(repaired)), call('verify_build'), { say: 'Done.' }]);
    expect(result).toMatchObject({ ok: true, published: true, stopReason: 'clean' });
  });

  it('a call that times out is retried', async () => {
    const { result, progress } = await build([{ hang: true }, call('verify_build'), stage(dashboard(repaired)), call('verify_build'), call('publish')], {
      timeoutMs: 300,
    });
    expect(result).toMatchObject({ ok: true, stopReason: 'clean', usage: { retries: 1 } });
    expect(progress.find((p) => p.kind === 'retry')).toMatchObject({ why: 'the request timed out' });
  });

  it('runtime (L3) errors after a publish re-open the session; the agent repairs and publishes again', async () => {
    const dash = app.artifacts.find((a) => a.type === 'dashboard')!;
    const empty = structuredClone(dash.body) as { widgets: any[] };
    empty.widgets[1].filter = { status: 'archived' };
    const { result, progress } = await build(
      [
        call('verify_build'),
        call('publish'),
        stage({ ...(dash.body as Record<string, unknown>), label: 'Spending (all statuses)' }),
        call('verify_build'),
        call('publish'),
      ],
      { staged: [...app.artifacts.filter((a) => a !== dash), { ...dash, body: empty }] },
    );
    expect(result).toMatchObject({ ok: true, published: true, stopReason: 'clean', session: { rounds: 4 } });
    expect(progress.filter((p) => p.kind === 'round').map((p) => p.kind === 'round' && [p.roundKind, p.errors, p.next])).toEqual([
      ['verify', 0, 'publish'],
      ['publish', 1, 'repair'],
      ['verify', 0, 'publish'],
      ['publish', 0, 'stop'],
    ]);
  });

  it('refuses bad input before any model call: a huge goal, bad bounds, a USD budget without a price, a bad tenant', async () => {
    const llm = await startScriptedLlm([]);
    const client = createAgentClient({ baseURL: llm.url, model: 'some-local-model' });
    const scope = { tenant: made.next(), package: 'app' };
    const run = (over: Partial<Parameters<typeof runBuild>[0]>) => runBuild({ platform, scope, prompt: GOAL, client, ...over });
    await expect(run({ prompt: 'x'.repeat(20_001) })).rejects.toThrow(/the goal is 20001 characters, over the 20000-character limit/);
    await expect(run({ bounds: { maxRounds: 99 } })).rejects.toThrow(/invalid session bounds: maxRounds/);
    await expect(run({ bounds: { maxTurnsPerRound: 0 } })).rejects.toThrow(BuildSetupError);
    await expect(run({ bounds: { budgetUsd: 1 } })).rejects.toThrow('a USD budget needs the price of model "some-local-model": add it to BVL_PRICES');
    await expect(run({ scope: { tenant: 'Bad Tenant', package: 'app' } })).rejects.toThrow(/^tenant "Bad Tenant" /);
    expect(llm.requests).toEqual([]);
    await llm.close();
  });

  it('after a clean publish the intent review runs; its mismatch is a warning naming the artifact, never blocking', async () => {
    const { result, llm } = await build(
      [
        call('verify_build'),
        stage(dashboard(repaired)),
        call('verify_build'),
        call('publish'),
        {
          json: {
            verdict: 'mismatch',
            findings: [
              { artifact: { type: 'dashboard', name: 'exp_spending' }, problem: 'nothing shows spending per category against budget', fix: 'add a widget' },
            ],
          },
        },
      ],
      { review: true },
    );
    expect(result).toMatchObject({ ok: true, published: true, stopReason: 'clean', review: 'mismatch' });
    expect(result.issues.filter((i) => i.layer === 'intent')).toEqual([
      expect.objectContaining({ code: 'intent_mismatch', severity: 'warning', artifact: { type: 'dashboard', name: 'exp_spending' }, fix: 'add a widget' }),
    ]);
    expect(result.card.warnings).toBe(1);
    const reviewRequest = llm.requests.at(-1)!.body;
    expect(reviewRequest.tools).toBeUndefined();
    expect(reviewRequest.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'intent_review', strict: true } });
    expect(reviewRequest.messages[1].content).toContain(GOAL);
    expect(result.usage.turns).toBe(4);
    // The review's spend is counted apart from the build's.
    expect(result.usage.tokensIn).toBe(400);
    expect(result.reviewUsage).toMatchObject({ tokensIn: 100, tokensOut: 20 });
  });
});
