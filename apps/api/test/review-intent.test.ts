// review_intent (issue 18 item 5) on every surface: the HTTP route, MCP over streamable HTTP (the
// real SDK client, through the app's own fetch) and the local MCP server — each judged by a
// scripted OpenAI-compatible endpoint on 127.0.0.1 through the real `openai` client.
import { createAgentClient } from '@bvl/build-agent';
import { type ScriptedLlm, startScriptedLlm } from '@bvl/build-agent/testing';
import { stageDrafts } from '@bvl/platform';
import { sessionReviews } from '@bvl/verify-build';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/create-app.ts';
import { createLocalMcp } from '../src/local/create-local-mcp.ts';
import { EXAMPLE, example, openTestApp, recordingLogger } from './test-app.ts';

const MISMATCH = {
  json: {
    verdict: 'mismatch',
    findings: [{ artifact: { type: 'dashboard', name: 'exp_spending' }, problem: 'it shows no spending by category', fix: 'add a bar widget by category' }],
  },
};
let llm: ScriptedLlm;
let t: Awaited<ReturnType<typeof openTestApp>>;
beforeAll(async () => {
  llm = await startScriptedLlm(Array.from({ length: 20 }, () => MISMATCH));
  t = await openTestApp();
});
afterAll(async () => {
  await t.close();
  await llm.close();
});

const judge = () => createAgentClient({ baseURL: llm.url, apiKey: 'sk-judge-secret-0001', model: 'judge-x', retry: { retries: 0 } });

describe('review_intent', () => {
  it('over HTTP: a judge model reviews the package; with a session the verdict is stored with its round and its spend apart', async () => {
    const app = createApp({ platform: t.platform, logger: recordingLogger(), version: 'test', judge: judge() });
    const tenant = await t.tenant('rev');
    const req = (path: string, json?: unknown) =>
      app.request(`${tenant.base}/${path}`, {
        method: json === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
      });
    const { app: published, drafts } = await example();
    await stageDrafts(t.platform, { tenant: tenant.id, package: 'exp' }, [...published.artifacts, ...drafts.artifacts]);
    const session = (await (await req('exp/sessions', { goal: 'Track team expenses by category' })).json()) as { id: string };
    expect((await req('exp/verify', { session: session.id })).status).toBe(200);
    const before = llm.requests.length;
    const r = await req('exp/review', { session: session.id });
    expect(r.status).toBe(200);
    const body = (await r.json()) as any;
    expect(body).toMatchObject({ verdict: 'mismatch', judge: 'judge-x', goal: 'Track team expenses by category', round: 0 });
    expect(body.issues).toEqual([
      expect.objectContaining({
        code: 'intent_mismatch',
        severity: 'warning',
        artifact: { type: 'dashboard', name: 'exp_spending' },
        fix: 'add a bar widget by category',
      }),
    ]);
    expect(llm.requests.length).toBe(before + 1);
    expect(llm.requests.at(-1)!.body).toMatchObject({ model: 'judge-x', response_format: { json_schema: { name: 'intent_review' } } });
    expect(llm.requests.at(-1)!.body.messages[1].content).toContain('Track team expenses by category');
    const stored = await sessionReviews(t.platform, { tenant: tenant.id, id: session.id });
    expect(stored.reviews).toEqual([{ round: 0, review: expect.objectContaining({ judge: 'judge-x', verdict: 'mismatch' }) }]);
    expect(stored.cost.review).toEqual({ tokensIn: 100, tokensOut: 20, costUsd: expect.any(Number) });
    expect(stored.cost.build).toMatchObject({ tokensIn: 0, tokensOut: 0 });
    // The session's transcript has the review turn, without the judge's key.
    const transcript = (await (await req(`exp/sessions/${session.id}/transcript`)).json()) as any;
    expect(transcript.transcript).toEqual([expect.objectContaining({ turn: 0, stage: 'review', role: 'assistant', tokensIn: 100, tokensOut: 20 })]);
    expect(JSON.stringify(transcript)).not.toContain('sk-judge-secret-0001');
    // Bad input: no goal and no session; an unknown session.
    expect(await (await req('exp/review', {})).json()).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('needs the goal') });
    expect((await req('exp/review', { session: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
  });

  it('over HTTP with no judge model configured: one clear error, no model call', async () => {
    const tenant = await t.tenant('nojudge');
    await stageDrafts(t.platform, { tenant: tenant.id, package: 'exp' }, (await example()).app.artifacts);
    const before = llm.requests.length;
    const r = await tenant.request('exp/review', { method: 'POST', json: { goal: 'x' } });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/^review_intent needs a judge model/) });
    expect(llm.requests.length).toBe(before);
  });

  it('over MCP (streamable HTTP, the real SDK client): the same tool and verdict', async () => {
    const app = createApp({ platform: t.platform, logger: recordingLogger(), version: 'test', judge: judge() });
    const tenant = await t.tenant('mcp');
    await stageDrafts(t.platform, { tenant: tenant.id, package: 'exp' }, (await example()).app.artifacts);
    const client = new Client({ name: 'bvl-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://bvl.test/mcp'), {
        requestInit: { headers: { authorization: `Bearer ${tenant.token}` } },
        fetch: (url, init) => Promise.resolve(app.request(String(url), init as RequestInit)),
      }),
    );
    try {
      const listed = await client.listTools();
      expect(listed.tools.map((x) => x.name)).toContain('review_intent');
      expect(listed.tools.map((x) => x.name)).not.toContain('get_transcript');
      const r = (await client.callTool({ name: 'review_intent', arguments: { package: 'exp', goal: 'Track team expenses' } })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ verdict: 'mismatch', judge: 'judge-x', issues: [{ code: 'intent_mismatch', severity: 'warning' }] });
    } finally {
      await client.close();
    }
  });

  it('over the local MCP server (bvl mcp): reviews the files against the goal', async () => {
    const server = createLocalMcp({
      cwd: EXAMPLE,
      version: 'test',
      openPlatform: () => Promise.reject(new Error('unused')),
      judge: () => ({ client: judge() }),
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: 'bvl-test', version: '1.0.0' });
    await client.connect(b);
    try {
      const r = (await client.callTool({ name: 'review_intent', arguments: { path: 'app', drafts: 'drafts', goal: 'Track team expenses' } })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toMatchObject({
        verdict: 'mismatch',
        judge: 'judge-x',
        issues: [{ code: 'intent_mismatch', artifact: { name: 'exp_spending' } }],
      });
      const none = createLocalMcp({
        cwd: EXAMPLE,
        version: 'test',
        openPlatform: () => Promise.reject(new Error('unused')),
        judge: () => ({ problem: 'no judge here' }),
      });
      const [c, d] = InMemoryTransport.createLinkedPair();
      await none.connect(c);
      const other = new Client({ name: 'bvl-test', version: '1.0.0' });
      await other.connect(d);
      const refused = (await other.callTool({ name: 'review_intent', arguments: { path: 'app', goal: 'x' } })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('no judge here');
      await other.close();
    } finally {
      await client.close();
    }
  });
});
