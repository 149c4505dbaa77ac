import { join } from 'node:path';
import { type RawArtifact, readSource } from '@bvl/metadata';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedLlm, type ScriptStep, startScriptedLlm } from '../test/scripted-llm.ts';
import { createAgentClient } from './agent-client.ts';
import { MAX_INTENT_FINDINGS } from './intent-review.ts';
import { reviewIntent } from './run-intent-review.ts';

const GOAL = 'Track team expenses by category, with budgets per category';
let artifacts: RawArtifact[];
let llm: ScriptedLlm | undefined;
beforeAll(async () => {
  artifacts = (await readSource(join(import.meta.dirname, '../../../examples/expense-tracker/app'))).artifacts;
});
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

async function review(step: ScriptStep) {
  llm = await startScriptedLlm([step]);
  const client = createAgentClient({ baseURL: llm.url, model: 'gpt-4o-mini', retry: { retries: 1, minTimeoutMs: 1, maxTimeoutMs: 2 } });
  return reviewIntent({ client, goal: GOAL, artifacts, fallbackName: 'app' });
}
const finding = (type: string, name: string, problem: string, fix: string | null = null) => ({ artifact: { type, name }, problem, fix });

describe('reviewIntent (one structured-output call)', () => {
  it('a pass leaves no warning; the request is a zod-derived JSON-schema response format over the app digest', async () => {
    const r = await review({ json: { verdict: 'pass', findings: [] }, usage: { prompt_tokens: 1000, completion_tokens: 10 } });
    expect(r).toMatchObject({ verdict: 'pass', issues: [], usage: { tokensIn: 1000, tokensOut: 10 } });
    const body = llm!.requests[0]!.body;
    expect(body.response_format.json_schema).toMatchObject({
      name: 'intent_review',
      strict: true,
      schema: { type: 'object', required: ['verdict', 'findings'], additionalProperties: false },
    });
    expect(body.messages[1].content).toContain(`Goal: ${GOAL}`);
    expect(body.messages[1].content).toContain('"type":"dashboard","name":"exp_spending"');
  });

  it('a mismatch becomes intent_mismatch warnings naming each artifact (a missing one is said to be missing)', async () => {
    const r = await review({
      json: {
        verdict: 'mismatch',
        findings: [
          finding('object', 'exp_category', 'has a monthly budget but nothing compares spending with it', 'add a measure of budget'),
          finding('dashboard', 'exp_budgets', 'the goal asks for budgets per category; no dashboard shows them'),
        ],
      },
    });
    expect(r.verdict).toBe('mismatch');
    expect(r.issues).toEqual([
      {
        layer: 'intent',
        severity: 'warning',
        code: 'intent_mismatch',
        artifact: { type: 'object', name: 'exp_category' },
        message: `Against the goal "${GOAL}", object "exp_category": has a monthly budget but nothing compares spending with it`,
        fix: 'add a measure of budget',
      },
      {
        layer: 'intent',
        severity: 'warning',
        code: 'intent_mismatch',
        artifact: { type: 'dashboard', name: 'exp_budgets' },
        message: `Against the goal "${GOAL}", dashboard "exp_budgets" (not in the app): the goal asks for budgets per category; no dashboard shows them`,
      },
    ]);
  });

  it(`keeps at most ${MAX_INTENT_FINDINGS} findings; a mismatch naming nothing is one warning on the app`, async () => {
    const many = await review({ json: { verdict: 'mismatch', findings: Array.from({ length: 30 }, (_, i) => finding('view', `v${i}`, 'p')) } });
    expect(many.issues).toHaveLength(MAX_INTENT_FINDINGS);
    const bare = await review({ json: { verdict: 'mismatch', findings: [] } });
    expect(bare.issues.map((i) => [i.code, i.severity, i.artifact])).toEqual([['intent_mismatch', 'warning', { type: 'app', name: 'exp_app' }]]);
  });

  const failures: Array<[string, ScriptStep, RegExp]> = [
    ['an unparsable answer', { say: 'Looks good to me!' }, /\(the answer is not JSON: "Looks good to me!"\)/],
    ['JSON of the wrong shape', { json: { verdict: 'ok' } }, /\(the answer does not fit the review schema \(verdict: Invalid option/],
    ['an empty answer', { say: '' }, /\(the model answered nothing\)/],
    [
      'a failed call',
      { status: 400, body: { error: { message: 'response_format is not supported' } } },
      /\(the model endpoint .* failed after 1 attempt\(s\): 400/,
    ],
  ];
  it.each(failures)('%s is one warning saying the app is unreviewed, not silence', async (_name, step, why) => {
    const r = await review(step);
    expect(r.verdict).toBe('failed');
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ code: 'intent_mismatch', severity: 'warning', layer: 'intent', artifact: { type: 'app', name: 'exp_app' } });
    expect(r.issues[0]!.message).toMatch(/^The intent review could not judge the app against its goal /);
    expect(r.issues[0]!.message).toMatch(why);
  });
});
