import { createAgentClient, runBuild } from '@bvl/build-agent';
import { type RecordedRequest, type ScriptStep, startScriptedLlm } from '@bvl/build-agent/testing';
import type { Platform } from '@bvl/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN_DIR } from '../test/golden-support.ts';
import { stageCalls } from '../test/scripted-builds.ts';
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
  build: async ({ platform: p, scope, prompt, maxRounds, signal }) => {
    const r = await runBuild({ platform: p, scope, prompt, client, signal, bounds: { maxRounds }, review: false });
    return { ...r, review: undefined };
  },
});

describe('the openai agent over a scripted endpoint', () => {
  it('builds two cases from their prompts: one passes, one fails naming what is missing; tokens on each row', async () => {
    const [helpdesk, inventory] = ['helpdesk', 'inventory'].map((n) => cases.find((c) => c.name === n)!) as [GoldenCase, GoldenCase];
    // The model's turn depends on the build it is in (its goal) and how far it got (its own turns).
    const turn = (req: RecordedRequest): ScriptStep => {
      const goal = String(req.body.messages.find((m: { role: string; content?: unknown }) => m.role === 'user')?.content ?? '');
      const n = req.body.messages.filter((m: { role: string }) => m.role === 'assistant').length;
      const usage = { prompt_tokens: 1000 + 100 * n, completion_tokens: 50 };
      const whole = goal.includes(helpdesk.prompt.slice(0, 40)) || goal.includes(helpdesk.prompts!.terse!.slice(0, 40));
      if (n === 0) return { calls: whole ? stageCalls(helpdesk.blueprint) : stageCalls(inventory.blueprint, ['dashboards', 'apps']), usage };
      if (n === 1) return { calls: [{ tool: 'verify_build' }], usage };
      if (n === 2) return { calls: [{ tool: 'publish' }], usage };
      return { say: 'Done.', usage };
    };
    const llm = await startScriptedLlm(Array.from({ length: 40 }, () => turn));
    closers.push(() => llm.close());
    const client = createAgentClient({ baseURL: llm.url, apiKey: 'sk-test', model: 'gpt-4o-mini', retry: { minTimeoutMs: 1, maxTimeoutMs: 4 } });
    const r = await runEvals({
      platform,
      agents: [openaiAgent(builderOf(client))],
      cases: [helpdesk, inventory],
      defects: 'none',
      suite: `t-openai-${process.pid}`,
    });
    expect(r.batch).toMatchObject({ agent: 'openai', model: 'gpt-4o-mini', endpoint: client.endpoint });
    const rows = await listAttempts(platform, r.batch, { full: true });
    // helpdesk runs in its default prompt and its "terse" variant: the model is asked both ways.
    expect(
      rows.map((a) => [a.case, a.prompt, a.status, a.stopReason]),
      rows.map((a) => a.failureReason ?? '').join('; '),
    ).toEqual([
      ['helpdesk', 'default', 'pass', 'clean'],
      ['helpdesk', 'terse', 'pass', 'clean'],
      ['inventory', 'default', 'fail', 'clean'],
    ]);
    expect(llm.requests.some((q) => JSON.stringify(q.body.messages).includes(helpdesk.prompts!.terse!.slice(0, 60)))).toBe(true);
    expect(
      rows[2]!.assertions.filter((a) => a.outcome === 'fail').map((a) => a.kind),
      rows[2]!.failureReason ?? '',
    ).toEqual(['dashboard_exists', 'widgets_return_rows', 'widgets_show_numbers', 'dashboards_reachable']);
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
