// Test support (the package's ./testing subpath): a scripted model's side of a build, for the
// scripted OpenAI-compatible endpoint of @bvl/build-agent/testing. The model stages a blueprint
// (or part of it) artifact by artifact, verifies, publishes and ends its turn; it answers the
// intent review and a rubric judge by the schema each asks for. What it builds is chosen per
// request (by the model asked, the goal), so one endpoint can answer a matrix differently.
import type { RecordedRequest, ScriptStep } from '@bvl/build-agent/testing';
import type { Blueprint } from '../src/case-file.ts';

/** stage_draft calls that write a blueprint as a model would, artifact by artifact (less the keys in `skip`). */
export function stageCalls(blueprint: Blueprint, skip: readonly string[] = []): Array<{ tool: string; args: unknown }> {
  const calls: Array<{ tool: string; args: unknown }> = [];
  const add = (key: string, type: string, name: (b: Record<string, unknown>) => unknown) => {
    if (skip.includes(key) || !Array.isArray(blueprint[key])) return;
    for (const body of blueprint[key] as Array<Record<string, unknown>>) calls.push({ tool: 'stage_draft', args: { type, name: name(body), body } });
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

/** What the scripted model builds for a request: a blueprint, less some stack keys. */
export interface ScriptedPlan {
  readonly blueprint: Blueprint;
  readonly skip?: readonly string[];
}

/** The name of the structured-output schema a request asks for (the intent review, a rubric judge), if any. */
const schemaOf = (req: RecordedRequest): string | undefined => req.body?.response_format?.json_schema?.name;

/**
 * A scripted model's turn for one request: stage what `plan` says, then verify, publish and end its
 * turn; the intent review answered `pass` when the app has a dashboard and `mismatch` otherwise,
 * and a rubric judge the same way (its verdict and reasoning). Usage grows with the turn.
 */
export function scriptedTurn(plan: (req: RecordedRequest) => ScriptedPlan): (req: RecordedRequest) => ScriptStep {
  return (req) => {
    const asked = String(req.body?.messages?.at(-1)?.content ?? '');
    const schema = schemaOf(req);
    if (schema === 'intent_review')
      return asked.includes('"type":"dashboard"')
        ? { json: { verdict: 'pass', findings: [] }, usage: { prompt_tokens: 800, completion_tokens: 20 } }
        : {
            json: {
              verdict: 'mismatch',
              findings: [{ artifact: { type: 'dashboard', name: 'support' }, problem: 'the goal asks for a dashboard', fix: null }],
            },
            usage: { prompt_tokens: 800, completion_tokens: 40 },
          };
    if (schema === 'rubric_verdict') {
      const none = asked.includes('"dashboards":[]');
      return {
        json: {
          verdict: none ? 'fail' : 'pass',
          reasoning: none ? 'The app has no dashboard, so satisfaction is not shown.' : 'The dashboard shows satisfaction.',
        },
        usage: { prompt_tokens: 1500, completion_tokens: 30 },
      };
    }
    const n = (req.body?.messages ?? []).filter((m: { role: string }) => m.role === 'assistant').length;
    const usage = { prompt_tokens: 1000 + 100 * n, completion_tokens: 50 };
    if (n === 0) {
      const p = plan(req);
      return { calls: stageCalls(p.blueprint, p.skip), usage };
    }
    if (n === 1) return { calls: [{ tool: 'verify_build' }], usage };
    if (n === 2) return { calls: [{ tool: 'publish' }], usage };
    return { say: 'Done.', usage };
  };
}
