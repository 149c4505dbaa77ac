// The context bench (issue 18 item 6): what the built-in agent sends a model per turn over a
// 10-round build, in tokens of a real tokenizer (gpt-tokenizer, o200k_base). A scripted
// OpenAI-compatible endpoint on 127.0.0.1 (the real `openai` client) stages the dashboard and
// verifies, ten times, on the example with its drafts (embedded PGlite in memory); the figures
// are of the prompts the endpoint received. Deterministic: judged against a budget.
// Standalone: `npx tsx bench/bench-context.ts`.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createAgentClient, runBuild, systemPrompt } from '@bvl/build-agent';
import { readSource } from '@bvl/metadata';
import { openPlatform, stageDrafts } from '@bvl/platform';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { type ScriptStep, startScriptedLlm } from '../packages/build-agent/test/scripted-llm.ts';
import type { Goal } from './measure.ts';

const EXAMPLE = join(import.meta.dirname, '../examples/expense-tracker');
/** Repair rounds of the build (each a changed draft set and a verify). */
const ROUNDS = 10;
/** The most tokens one turn's prompt may send, the reference included. */
export const TURN_BUDGET = 12_000;

type Log = (line: string) => void;

/** Runs the context bench; returns its budget as a goal. */
export async function benchContext(log: Log): Promise<Goal[]> {
  const app = await readSource(join(EXAMPLE, 'app'), { draft: true });
  const drafts = await readSource(join(EXAMPLE, 'drafts'), { draft: true });
  const dashboard = drafts.artifacts.find((a) => a.type === 'dashboard')!;
  // Each round: the model reads the dashboard, stages it with a new title (the draft set changes, the
  // error stays), and verifies — so the session records a repair round per verify.
  const script: ScriptStep[] = [{ calls: [{ tool: 'list_artifacts' }] }, { calls: [{ tool: 'verify_build' }] }];
  for (let r = 1; r <= ROUNDS; r++)
    script.push(
      { calls: [{ tool: 'get_artifact', args: { type: 'dashboard', name: dashboard.name } }] },
      { calls: [{ tool: 'stage_draft', args: { type: 'dashboard', name: dashboard.name, body: { ...(dashboard.body as object), label: `Spending ${r}` } } }] },
      { calls: [{ tool: 'verify_build' }] },
    );
  const llm = await startScriptedLlm(script);
  const platform = await openPlatform({ dataDir: 'memory' });
  try {
    const scope = { tenant: 'bench', package: 'exp' };
    await stageDrafts(platform, scope, [...app.artifacts, ...drafts.artifacts]);
    const client = createAgentClient({ baseURL: llm.url, apiKey: 'bench', model: 'gpt-4o-mini' });
    const result = await runBuild({
      platform,
      scope,
      prompt: 'Track team expenses by category and status, with a spending dashboard',
      client,
      review: false,
      bounds: { maxRounds: ROUNDS, noProgressRounds: 50, maxTurnsPerRound: 10 },
    });
    const tokens = llm.requests.map((r) => countTokens(JSON.stringify(r.body.messages)));
    const tools = countTokens(JSON.stringify(llm.requests[0]?.body.tools ?? []));
    log(
      `a ${result.session.repairRounds}-round build (${llm.requests.length} turns, stopped: ${result.stopReason}); the reference: ${countTokens(systemPrompt())} tokens (sent until round 0 is recorded), the tool definitions: ${tools} tokens (every turn)`,
    );
    log(`prompt tokens per turn (messages, o200k): ${tokens.join(' ')}`);
    const late = tokens.slice(3);
    const kb = (i: number) => `${(Buffer.byteLength(JSON.stringify(llm.requests.at(i)!.body.messages)) / 1024).toFixed(1)} KB`;
    log(`messages sent: turn 1 ${kb(0)}, turn 5 ${kb(4)}, turn ${llm.requests.length} ${kb(-1)}`);
    log(`from turn 4 on: min ${Math.min(...late)}, max ${Math.max(...late)}; total over the build ${tokens.reduce((a, b) => a + b, 0)} tokens`);
    return [{ name: `the largest prompt of a ${ROUNDS}-round build ≤ ${TURN_BUDGET} tokens`, value: Math.max(...tokens), limit: TURN_BUDGET, unit: 'tokens' }];
  } finally {
    await llm.close();
    await platform.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const goals = await benchContext((l) => console.log(l));
  const { goalLine } = await import('./measure.ts');
  for (const g of goals) console.log(goalLine(g));
}
