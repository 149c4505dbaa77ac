import { listDrafts, type Platform } from '@bvl/platform';
import { createSession } from '@bvl/verify-build';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOLDEN_DIR } from '../test/golden-support.ts';
import { openTestPlatform, tenants } from '../test/test-platform.ts';
import { type AttemptBudget, attemptBounds } from './case-file.ts';
import { RateLimitedError } from './eval-agent.ts';
import { type GoldenCase, loadGoldenCases } from './golden-case.ts';
import { evalCaseOf } from './plan-attempts.ts';
import { type AgentBuilder, openaiAgent } from './run-openai-agent.ts';

// The openai agent's adapter over its port. The builder here opens a real session and records
// what the store held when it started; the built-in agent behind the port is tested in build-agent.
let platform: Platform;
let cases: GoldenCase[];
const made = tenants(() => platform);
beforeAll(async () => {
  [platform, cases] = await Promise.all([openTestPlatform(), loadGoldenCases(GOLDEN_DIR)]);
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
});

function builder(result: { error?: string; errorStatus?: number } = {}) {
  const seen: Array<{ prompt: string; maxRounds: number; drafts: number; budget?: AttemptBudget }> = [];
  const b: AgentBuilder = {
    model: 'gpt-test',
    endpoint: 'http://127.0.0.1:9/v1',
    async build({ platform: p, scope, prompt, maxRounds, budget }) {
      seen.push({ prompt, maxRounds, drafts: (await listDrafts(p, scope)).length, ...(budget ? { budget } : {}) });
      const session = await createSession(p, { ...scope, goal: prompt });
      return { session: { id: session.id }, usage: { tokensIn: 1200, tokensOut: 300, costUsd: 0.002 }, ...result };
    },
  };
  return { b, seen };
}
const helpdesk = () => cases.find((c) => c.name === 'helpdesk')!;
const signal = () => new AbortController().signal;

describe('openaiAgent', () => {
  it('builds a clean variant from the prompt alone, and reports the session, usage, model and endpoint', async () => {
    const { b, seen } = builder();
    const agent = openaiAgent(b);
    expect(agent).toMatchObject({ name: 'openai', model: 'gpt-test', endpoint: 'http://127.0.0.1:9/v1' });
    const r = await agent.run({ platform, scope: { tenant: made.next('oa'), package: 'app' }, case: evalCaseOf(helpdesk(), 'clean'), signal: signal() });
    expect(seen).toEqual([{ prompt: helpdesk().prompt, maxRounds: helpdesk().maxRounds, drafts: 0 }]);
    expect(r).toEqual({ sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/), usage: { tokensIn: 1200, tokensOut: 300, costUsd: 0.002 } });
  });

  it('stages the broken stack of a defect variant first: a build to repair', async () => {
    const { b, seen } = builder();
    await openaiAgent(b).run({ platform, scope: { tenant: made.next('oa'), package: 'app' }, case: evalCaseOf(helpdesk(), 'widget-typos'), signal: signal() });
    expect(seen[0]!.drafts).toBeGreaterThan(10);
  });

  it('turns an endpoint that kept answering 429 into a RateLimitedError, and passes any other failure on as the error', async () => {
    const limited = builder({ error: 'the model endpoint http://127.0.0.1:9/v1 failed after 4 attempt(s): 429 Rate limit reached', errorStatus: 429 });
    await expect(
      openaiAgent(limited.b).run({ platform, scope: { tenant: made.next('oa'), package: 'app' }, case: evalCaseOf(helpdesk(), 'clean'), signal: signal() }),
    ).rejects.toBeInstanceOf(RateLimitedError);
    // The status decides, not the words: a 503 whose message mentions 429 is still the attempt's error.
    const down = builder({ error: 'the model endpoint http://127.0.0.1:9/v1 failed after 4 attempt(s): 503 unavailable (was 429 earlier)', errorStatus: 503 });
    const r = await openaiAgent(down.b).run({
      platform,
      scope: { tenant: made.next('oa'), package: 'app' },
      case: evalCaseOf(helpdesk(), 'clean'),
      signal: signal(),
    });
    expect(r.error).toContain('503 unavailable');
  });

  it("passes the case's budget to the builder; the run's cap only lowers it", async () => {
    const { b, seen } = builder();
    const c = { ...helpdesk(), budget: { tokens: 50_000, seconds: 300 } };
    await openaiAgent(b).run({ platform, scope: { tenant: made.next('oa'), package: 'app' }, case: evalCaseOf(c, 'clean'), signal: signal() });
    expect(seen[0]!.budget).toEqual({ tokens: 50_000, seconds: 300 });
    expect(attemptBounds(c.budget, { tokens: 20_000, usd: 1 })).toEqual({ budgetTokens: 20_000, budgetUsd: 1, budgetMs: 300_000 });
    expect(attemptBounds(c.budget, { tokens: 90_000 })).toEqual({ budgetTokens: 50_000, budgetMs: 300_000 });
    expect(attemptBounds(undefined, undefined)).toEqual({});
  });
});
