import { createAgentClient, runBuild } from '@bvl/build-agent';
import { type RecordedRequest, type ScriptStep, startScriptedLlm } from '@bvl/build-agent/testing';
import type { Platform } from '@bvl/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN_DIR } from '../test/golden-support.ts';
import { openTestPlatform, tenants } from '../test/test-platform.ts';
import { RateLimitedError } from './eval-agent.ts';
import { type GoldenCase, loadGoldenCases } from './golden-case.ts';
import { evalCaseOf } from './plan-attempts.ts';
import { listAttempts } from './run-eval-store.ts';
import { runEvals } from './run-evals.ts';
import { type AgentBuilder, openaiAgent } from './run-openai-agent.ts';

// The openai agent end to end: build-agent's runBuild over its scripted OpenAI-compatible endpoint
// (a real node:http server on 127.0.0.1), through runEvals, graded from the platform: one case the
// model builds whole passes, one it builds without its dashboards fails, naming what is missing.
//
// eval-runner does not depend on build-agent at run time (the agent reaches it through the
// AgentBuilder port, composed in apps/cli); this test uses it as a dev dependency.

let platform: Platform;
let cases: GoldenCase[];
const closers: Array<() => Promise<void>> = [];
const made = tenants(() => platform);
beforeAll(async () => {
  [platform, cases] = await Promise.all([openTestPlatform(), loadGoldenCases(GOLDEN_DIR)]);
});
afterAll(async () => {
  for (const close of closers) await close();
  await made.dropAll();
  await platform.close();
});

/** The openai agent's port filled with build-agent's runBuild over `client`, as apps/cli composes it. */
const builderOf = (client: ReturnType<typeof createAgentClient>): AgentBuilder => ({
  model: client.model,
  endpoint: client.endpoint,
  build: ({ platform: p, scope, prompt, maxRounds, signal }) => runBuild({ platform: p, scope, prompt, client, signal, bounds: { maxRounds }, review: false }),
});

/** stage_draft calls that write a blueprint as a model would, artifact by artifact (less the keys in `skip`). */
function stageCalls(c: GoldenCase, skip: readonly string[] = []) {
  const calls: Array<{ tool: string; args: unknown }> = [];
  const add = (key: string, type: string, name: (b: Record<string, unknown>) => unknown) => {
    if (skip.includes(key) || !Array.isArray(c.blueprint[key])) return;
    for (const body of c.blueprint[key] as Array<Record<string, unknown>>) calls.push({ tool: 'stage_draft', args: { type, name: name(body), body } });
  };
  const viewObject = (b: Record<string, unknown>) => b.object ?? (b.list as { data?: { object?: string } } | undefined)?.data?.object ?? b.name;
  add('objects', 'object', (b) => b.name);
  add('datasets', 'dataset', (b) => b.name);
  add('views', 'view', viewObject);
  add('dashboards', 'dashboard', (b) => b.name);
  add('apps', 'app', (b) => b.name);
  add('data', 'seed', (b) => b.object);
  return calls;
}

describe('the openai agent over a scripted endpoint', () => {
  it('builds two cases from their prompts: one passes, one fails naming what is missing; tokens on each row', async () => {
    const [helpdesk, inventory] = ['helpdesk', 'inventory'].map((n) => cases.find((c) => c.name === n)!) as [GoldenCase, GoldenCase];
    // The model's turn depends on the build it is in (its goal) and how far it got (its own turns).
    const turn = (req: RecordedRequest): ScriptStep => {
      const goal = String(req.body.messages.find((m: { role: string; content?: unknown }) => m.role === 'user')?.content ?? '');
      const n = req.body.messages.filter((m: { role: string }) => m.role === 'assistant').length;
      const usage = { prompt_tokens: 1000 + 100 * n, completion_tokens: 50 };
      const whole = goal.includes(helpdesk.prompt.slice(0, 40));
      if (n === 0) return { calls: whole ? stageCalls(helpdesk) : stageCalls(inventory, ['dashboards', 'apps']), usage };
      if (n === 1) return { calls: [{ tool: 'verify_build' }], usage };
      if (n === 2) return { calls: [{ tool: 'publish' }], usage };
      return { say: 'Done.', usage };
    };
    const llm = await startScriptedLlm(Array.from({ length: 40 }, () => turn));
    closers.push(() => llm.close());
    const client = createAgentClient({ baseURL: llm.url, apiKey: 'sk-test', model: 'gpt-4o-mini', retry: { minTimeoutMs: 1, maxTimeoutMs: 4 } });
    const r = await runEvals({
      platform,
      agent: openaiAgent(builderOf(client)),
      cases: [helpdesk, inventory],
      defects: 'none',
      suite: `t-openai-${process.pid}`,
    });
    expect(r.batch).toMatchObject({ agent: 'openai', model: 'gpt-4o-mini', endpoint: client.endpoint });
    const rows = await listAttempts(platform, r.batch, { full: true });
    expect(
      rows.map((a) => [a.case, a.status, a.stopReason]),
      rows.map((a) => a.failureReason ?? '').join('; '),
    ).toEqual([
      ['helpdesk', 'pass', 'clean'],
      ['inventory', 'fail', 'clean'],
    ]);
    expect(
      rows[1]!.assertions.filter((a) => !a.pass).map((a) => a.kind),
      rows[1]!.failureReason ?? '',
    ).toEqual(['dashboard_exists', 'widgets_return_rows', 'dashboards_reachable']);
    for (const a of rows) expect(a).toMatchObject({ tokensIn: 3300, tokensOut: 150 });
  });

  it('an endpoint that keeps answering 429 is a RateLimitedError for the runner to back off from, not an attempt error', async () => {
    // Worded as the OpenAI client words it: "429 <message>" (the status decides, not the words).
    const limited = { status: 429, headers: { 'retry-after': '0' }, body: { error: { message: 'Rate limit reached' } } };
    const llm = await startScriptedLlm([limited, limited]);
    closers.push(() => llm.close());
    const client = createAgentClient({ baseURL: llm.url, apiKey: 'sk-test', model: 'gpt-4o-mini', retry: { retries: 1, minTimeoutMs: 1, maxTimeoutMs: 4 } });
    const helpdesk = cases.find((c) => c.name === 'helpdesk')!;
    const run = openaiAgent(builderOf(client)).run({
      platform,
      scope: { tenant: made.next('oa429'), package: 'app' },
      case: evalCaseOf(helpdesk, 'clean'),
      signal: new AbortController().signal,
    });
    await expect(run).rejects.toBeInstanceOf(RateLimitedError);
    expect(llm.requests).toHaveLength(2);
  });
});
