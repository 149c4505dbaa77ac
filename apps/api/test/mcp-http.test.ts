// End to end on a real listening server started by the composition root (main.ts: the database the
// environment names, the demo staged, a token), driven by the MCP SDK client over streamable HTTP
// and by plain fetch: the same tools, the same issues, the same gate.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { dropTenant, openPlatform, setNewDataDirTemplate } from '@bvl/platform';
import { ENGINE } from '@bvl/platform/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type RunningServer, startServer } from '../src/main.ts';
import { TOOLS } from '../src/tools.ts';

let server: RunningServer;
let cwd: string;
let client: Client;
// Sessions optional here (this suite also calls verify and publish without one); policy.test.ts covers the default.
const env = { BVL_POLICY: '{"requireSession":false}', ...(ENGINE === 'postgres' ? { DATABASE_URL: process.env.DATABASE_URL } : {}) };

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'bvl-serve-'));
  if (ENGINE === 'postgres') {
    // The demo tenant is shared by name: start it from nothing.
    const p = await openPlatform({ databaseUrl: process.env.DATABASE_URL });
    await dropTenant(p, 'demo');
    await p.close();
  }
  // On PGlite the new data folder starts from the suite's migrated dump, as `bvl serve` starts one
  // from the template its build ships: the MCP transport is under test here, not initdb (seconds).
  if (ENGINE === 'pglite') setNewDataDirTemplate(async () => new Blob([await readFile(inject('pgliteDump'))]));
  try {
    server = await startServer({ port: 0, host: '127.0.0.1', demo: true, env, cwd, version: 'test', logTo: devNull() });
  } finally {
    setNewDataDirTemplate(undefined);
  }
  client = new Client({ name: 'bvl-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${server.demo!.token}` } } }),
  );
});
afterAll(async () => {
  await client?.close();
  await server?.close();
  await rm(cwd, { recursive: true, force: true });
  if (ENGINE === 'postgres') {
    const p = await openPlatform({ databaseUrl: process.env.DATABASE_URL });
    await dropTenant(p, 'demo');
    await p.close();
  }
});

function devNull(): NodeJS.WritableStream {
  return new Writable({ write: (_c, _e, done) => done() });
}

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const codes = (issues: Array<{ code: string; severity: string }>) => issues.filter((i) => i.severity === 'error').map((i) => i.code);

describe('a real server', () => {
  it('listens on 127.0.0.1 with the demo: the example published, the broken drafts staged', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.demo).toMatchObject({ tenant: 'demo', package: 'expense' });
    expect(server.demo!.token).toMatch(/^bvl_[0-9a-f]{16}_/);
  });

  it('MCP lists the same tools the HTTP API routes, each with an outputSchema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      Object.values(TOOLS)
        .filter((t: { mcp?: false }) => t.mcp !== false)
        .map((t) => t.name)
        .sort(),
    );
    for (const t of tools) expect(t.outputSchema, t.name).toMatchObject({ type: 'object' });
  });

  it('verify over MCP: the broken build comes back as structured content — issues are data, not an error', async () => {
    const r = await call('verify_build', { package: 'expense' });
    expect(r.isError).toBeFalsy();
    const out = r.structuredContent as { ok: boolean; publishable: boolean; issues: Array<{ code: string; severity: string; artifact: { name: string } }> };
    expect(out).toMatchObject({ ok: false, publishable: false });
    expect(codes(out.issues)).toEqual(['unknown_measure', 'dangling_dataset', 'invalid_artifact']);
    // The same answer over plain HTTP.
    const http = await fetch(`${server.url}/v1/tenants/demo/packages/expense/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.demo!.token}` },
    });
    expect(http.status).toBe(200);
    // HTTP answers in full by default, MCP in summary: the same issues, by the same ids; the compact
    // form is a BuildIssue's identifying fields, one message, its fix and its patch id.
    const full = ((await http.json()) as { issues: Array<Record<string, unknown>> }).issues;
    expect(full.map((i) => i.id)).toEqual(out.issues.map((i) => (i as { id?: string }).id));
    const compact = ['id', 'layer', 'severity', 'code', 'artifact', 'member', 'path', 'message', 'fix', 'patchId', 'fixSafety', 'masks'];
    for (const [k, i] of out.issues.entries()) {
      expect(Object.keys(i).filter((key) => !compact.includes(key))).toEqual([]);
      expect(i).toMatchObject({ code: full[k]!.code, message: full[k]!.message });
    }
  });

  it('publish with L1/L2 errors is refused over MCP and over HTTP alike, and nothing is published', async () => {
    const r = await call('publish', { package: 'expense' });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ outcome: 'refused', published: false });
    expect(codes((r.structuredContent as { issues: Array<{ code: string; severity: string }> }).issues)).toEqual([
      'unknown_measure',
      'dangling_dataset',
      'invalid_artifact',
    ]);
    const http = await fetch(`${server.url}/v1/tenants/demo/packages/expense/publish`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.demo!.token}` },
    });
    expect(http.status).toBe(409);
    expect(await http.json()).toMatchObject({ outcome: 'refused', published: false });
  });

  it('the whole loop over MCP: session, fixer, the agent repairs, the gate lets it through, the card says so', async () => {
    const session = (await call('create_session', { package: 'expense', goal: 'Track expenses with a spending dashboard' })).structuredContent as {
      id: string;
    };
    const first = (await call('verify_build', { package: 'expense', session: session.id })).structuredContent as any;
    expect(first.fixes).toHaveLength(2);
    expect(codes(first.issues)).toEqual(['dangling_dataset']);
    const draft = (await call('get_draft', { package: 'expense', type: 'dashboard', name: 'exp_spending' })).structuredContent as any;
    const body = structuredClone(draft.body);
    // A first repair that is half right: the stage answer names what this write broke.
    body.widgets[2].dataset = 'exp_expense_metrics';
    const half = (await call('stage_draft', { package: 'expense', type: 'dashboard', name: 'exp_spending', body })).structuredContent as any;
    expect(half).toMatchObject({ resolved: 1, errors: 1 });
    expect(half.issues.map((i: { code: string; member: string }) => [i.code, i.member])).toEqual([['unknown_measure', 'budget_left']]);
    body.widgets[2].values = ['approved_amount'];
    const staged = (await call('stage_draft', { package: 'expense', type: 'dashboard', name: 'exp_spending', body })).structuredContent as any;
    expect(staged).toMatchObject({ issues: [], resolved: 1, errors: 0 });
    const second = (await call('verify_build', { package: 'expense', session: session.id })).structuredContent as any;
    expect(second).toMatchObject({ ok: true, publishable: true, session: { next: 'publish' } });
    const published = await call('publish', { package: 'expense', session: session.id });
    expect(published.isError).toBeFalsy();
    expect(published.structuredContent).toMatchObject({ outcome: 'published', ok: true, session: { status: 'stopped', stopReason: 'clean' } });
    const health = (await call('build_health', { package: 'expense', session: session.id })).structuredContent as { line: string };
    expect(health.line).toBe('✓ structure · ✓ renders · ✓ 9 rows · ✓ 3/3 widgets return data');
  });

  it('bad input is an MCP error result naming the problem; bvl stays up', async () => {
    const r = await call('get_session', { package: 'expense', id: '00000000-0000-0000-0000-000000000000' });
    expect(r.isError).toBe(true);
    expect((r.content as Array<{ text: string }>)[0]!.text).toMatch(/^not_found: unknown session/);
    const bad = await call('stage_draft', { package: 'Not A Package', type: 'object', name: 'x', body: {} });
    expect(bad.isError).toBe(true);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('a tool call whose draft repeats a key is refused as the HTTP API refuses it, and nothing is staged', async () => {
    const post = (text: string) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.demo!.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: text,
      });
    // JSON.parse would keep only the second label: the agent would stage something else than it sent.
    const body = '{"label":"Sent first","label":"Kept by JSON.parse","fields":{}}';
    const text = `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"stage_draft","arguments":{"package":"expense","type":"object","name":"exp_repeat","body":${body}}}}`;
    const r = await post(text);
    expect(r.status).toBe(400);
    const answer = (await r.json()) as { id: unknown; error: { code: number; message: string; data: { problems: Array<{ path: string; message: string }> } } };
    expect(answer.id).toBe(41);
    expect(answer.error.code).toBe(-32600);
    expect(answer.error.message).toMatch(/the key "label" twice at body\.params\.arguments\.body/);
    expect(answer.error.data.problems[0]!.message).toMatch(/appears again at line 1, column \d+ .*keep one/);
    const drafts = (await call('list_drafts', { package: 'expense' })).structuredContent as { drafts?: Array<{ name: string }> };
    expect(JSON.stringify(drafts)).not.toContain('exp_repeat');
    // Not JSON at all: the transport's own parse error, as before.
    const broken = await post('{"jsonrpc":"2.0",');
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { code: number } }).error.code).toBe(-32700);
    // The same request without the repeat stages the draft.
    const ok = await post(text.replace('"label":"Sent first",', ''));
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { result: { isError?: boolean } }).result.isError).toBeFalsy();
    const got = (await call('get_draft', { package: 'expense', type: 'object', name: 'exp_repeat' })).structuredContent as { body: { label: string } };
    expect(got.body.label).toBe('Kept by JSON.parse');
    await call('discard_drafts', { package: 'expense', artifacts: [{ type: 'object', name: 'exp_repeat' }] });
  });
});
