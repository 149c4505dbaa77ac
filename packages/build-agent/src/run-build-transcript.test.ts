import { join } from 'node:path';
import { type ArtifactSet, readSource } from '@bvl/metadata';
import { type Platform, stageDrafts } from '@bvl/platform';
import { openTestPlatform, tenants } from '@bvl/platform/testing';
import { readTranscript } from '@bvl/verify-build';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Script, type ScriptStep, startScriptedLlm } from '../test/scripted-llm.ts';
import { createAgentClient } from './agent-client.ts';
import { condenseConversation, promptChars, RECENT_TURNS } from './condense-conversation.ts';
import { runBuild } from './run-build.ts';
import { systemPrompt } from './system-prompt.ts';

// The build's transcript (issue 18 item 4) and its bounded context (item 6), over the real loop:
// a scripted OpenAI-compatible endpoint on 127.0.0.1, the real `openai` client, the real store.
const EXAMPLE = join(import.meta.dirname, '../../../examples/expense-tracker');
let platform: Platform;
let app: ArtifactSet;
let drafts: ArtifactSet;
const made = tenants(() => platform);
beforeAll(async () => {
  platform = await openTestPlatform();
  app = await readSource(join(EXAMPLE, 'app'), { draft: true });
  drafts = await readSource(join(EXAMPLE, 'drafts'), { draft: true });
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
});

const call = (tool: string, args?: unknown): ScriptStep => ({ calls: [{ tool, args }] });

async function build(script: Script, tenant = made.next('tx')) {
  const llm = await startScriptedLlm(script);
  const client = createAgentClient({ baseURL: llm.url, apiKey: 'sk-scripted-key-0123', model: 'gpt-4o-mini', retry: { minTimeoutMs: 1, maxTimeoutMs: 4 } });
  const scope = { tenant, package: 'app' };
  await stageDrafts(platform, scope, [...app.artifacts, ...drafts.artifacts]);
  try {
    return { result: await runBuild({ platform, scope, prompt: 'Track team expenses', client, review: false, bounds: { maxRounds: 10 } }), llm, scope };
  } finally {
    await llm.close();
  }
}

describe('the build transcript', () => {
  it('a transcript write that fails never fails the build: the build ends as it would, and its summary says what was lost', async () => {
    const tenant = made.next('txfail');
    // A real fault in the store, for this tenant only: every insert into the transcript is refused.
    await sql
      .raw(
        `create or replace function bvl.refuse_${tenant}() returns trigger language plpgsql as $$ begin if new.tenant_id = '${tenant}' then raise exception 'disk full (test)'; end if; return new; end $$`,
      )
      .execute(platform.db);
    await sql
      .raw(`create trigger refuse_${tenant} before insert on bvl.build_transcripts for each row execute function bvl.refuse_${tenant}()`)
      .execute(platform.db);
    try {
      const { result } = await build([call('verify_build'), call('list_artifacts'), { say: 'done' }], tenant);
      expect(result.error).toBeUndefined();
      expect(result.warnings).toEqual([
        expect.stringMatching(/^the transcript is incomplete: \d+ turn\(s\) could not be stored \(first: .*disk full \(test\)/),
      ]);
      expect(result.summary).toMatch(/\(warning: the transcript is incomplete: /);
      expect(await readTranscript(platform, { tenant, id: result.session.id })).toEqual([]);
    } finally {
      await sql.raw(`drop trigger refuse_${tenant} on bvl.build_transcripts`).execute(platform.db);
      await sql.raw(`drop function bvl.refuse_${tenant}()`).execute(platform.db);
    }
  });

  it('every model turn is stored with its tool calls and results; the API key never is', async () => {
    const { result } = await build([
      call('verify_build'),
      { calls: [{ tool: 'list_artifacts' }, { tool: 'get_artifact', args: { type: 'dashboard', name: 'exp_spending' } }] },
    ]);
    expect(result.warnings).toEqual([]);
    const t = await readTranscript(platform, { tenant: result.session.tenant, id: result.session.id });
    const model = t.filter((x) => x.role === 'assistant');
    expect(model.slice(0, 2).map((x) => x.toolCalls.map((c) => [c.name, typeof c.result]))).toEqual([
      [['verify_build', 'string']],
      [
        ['list_artifacts', 'string'],
        ['get_artifact', 'string'],
      ],
    ]);
    // bvl's interventions (the agent ended its turn) are user turns.
    expect(t.some((x) => x.role === 'user' && x.content?.includes('bvl ran verify_build for you'))).toBe(true);
    expect(JSON.stringify(t)).not.toContain('sk-scripted-key-0123');
  });
});

describe('the bounded context', () => {
  it('the reference goes until the first round; older tool results are condensed; every prompt stays within the bound', async () => {
    const turns: ScriptStep[] = [call('list_artifacts'), call('verify_build')];
    for (let i = 0; i < 8; i++) turns.push(call('get_artifact', { type: 'dashboard', name: 'exp_spending' }), call('list_artifacts'));
    const { llm } = await build(turns);
    const sizes = llm.requests.map((r) => promptChars(r.body.messages));
    const reference = systemPrompt();
    expect(llm.requests[0]!.body.messages[0].content).toBe(reference);
    expect(llm.requests[2]!.body.messages[0].content).toBe(systemPrompt({ reference: false }));
    // Turn 3 on, the prompt no longer grows with every turn: each old answer is a short head.
    const late = sizes.slice(4);
    expect(Math.max(...late) - Math.min(...late)).toBeLessThan(6_000);
    const last = llm.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>;
    const tools = last.filter((m) => m.role === 'tool');
    expect(tools.slice(0, -RECENT_TURNS).every((m) => m.content.length < 500)).toBe(true);
    expect(tools.at(-1)!.content.length).toBeGreaterThan(500);
  });

  it('condenseConversation keeps pairs intact and cuts old tool-call arguments when over the bound', () => {
    const big = JSON.stringify({ body: 'y'.repeat(5_000) });
    const messages = [
      { role: 'system' as const, content: 's' },
      { role: 'user' as const, content: 'Goal' },
      ...Array.from({ length: 5 }, (_, i) => [
        {
          role: 'assistant' as const,
          content: null,
          tool_calls: [{ id: `c${i}`, type: 'function' as const, function: { name: 'stage_draft', arguments: big } }],
        },
        { role: 'tool' as const, tool_call_id: `c${i}`, content: 'z'.repeat(3_000) },
      ]).flat(),
    ];
    const out = condenseConversation(messages, { maxChars: 20_000 });
    expect(out).toHaveLength(messages.length);
    expect(out.map((m) => m.role)).toEqual(messages.map((m) => m.role));
    expect(promptChars(out)).toBeLessThanOrEqual(20_000);
    expect(out[1]).toEqual(messages[1]);
    expect((out.at(-1) as { content: string }).content).toHaveLength(3_000);
    expect(JSON.parse((out[2] as any).tool_calls[0].function.arguments).condensed).toMatch(/condensed: an earlier answer of 5011 characters/);
  });
});
