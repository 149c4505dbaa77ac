// Answers sized for a model, over a real listening server (the app on a test platform, a tenant of
// its own, PGlite or PostgreSQL) through the real MCP SDK client: the token budgets (counted with
// gpt-tokenizer's o200k encoding — deterministic, so a test may hold them), the loop an agent runs
// (stage_drafts → verify_build, a summary then a page → apply_fix → publish), and each bad input
// answered with one clear error and nothing applied, over MCP and plain HTTP alike.
import { readdir, readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { collectStack } from '@bvl/metadata';
import { stageDrafts } from '@bvl/platform';
import { generateBrokenStack } from '@bvl/test-support';
import { verify } from '@bvl/verify';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE, openTestApp } from './test-app.ts';

/** The budgets of issue 18, in o200k tokens (bench/bench-answers.ts prints the same figures). */
const BUDGET = { bigVerify: 8000, smallVerify: 1000, toolsList: 6000 };

let t: Awaited<ReturnType<typeof openTestApp>>;
let tenant: Awaited<ReturnType<Awaited<ReturnType<typeof openTestApp>>['tenant']>>;
let server: ReturnType<typeof serve>;
let client: Client;
/** A second tenant's client, for the loop that publishes (a publish owns the example's names in its tenant). */
let loopClient: Client;

/** An MCP SDK client of a tenant, over streamable HTTP to the listening server. */
async function connect(token: string): Promise<Client> {
  const c = new Client({ name: 'bvl-test', version: '1.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return c;
}

beforeAll(async () => {
  t = await openTestApp();
  tenant = await t.tenant('answers');
  server = await new Promise<ReturnType<typeof serve>>((done) => {
    const s = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => done(s));
  });
  client = await connect(tenant.token);
  loopClient = await connect((await t.tenant('loop')).token);
});
afterAll(async () => {
  await client?.close();
  await loopClient?.close();
  await new Promise<void>((done) => server?.close(() => done()));
  await t?.close();
});

const call = async (name: string, args: Record<string, unknown>, c = client) =>
  (await c.callTool({ name, arguments: args }, undefined, { timeout: 115_000 })) as CallToolResult;
const text = (r: CallToolResult) => (r.content as Array<{ text: string }>).map((c) => c.text).join('\n');
const out = (r: CallToolResult) => r.structuredContent as any;

/** The example's files as stage_drafts takes them: each artifact as the stack format has it. */
async function exampleArtifacts(part: 'app' | 'drafts') {
  const types: Record<string, string> = { objects: 'object', views: 'view', dashboards: 'dashboard', datasets: 'dataset', apps: 'app', seeds: 'seed' };
  const artifacts: Array<{ type: string; name: string; body: Record<string, unknown> }> = [];
  for (const dir of (await readdir(join(EXAMPLE, part))).sort())
    for (const f of (await readdir(join(EXAMPLE, part, dir))).sort()) {
      const body = JSON.parse(await readFile(join(EXAMPLE, part, dir, f), 'utf8')) as Record<string, unknown>;
      artifacts.push({ type: types[dir]!, name: String(body.name ?? body.object ?? f.replace(/\.json$/, '')), body });
    }
  return artifacts;
}

describe('token budgets (o200k)', () => {
  it(`tools/list over HTTP ≤ ${BUDGET.toolsList} tokens, every tool with an outputSchema`, async () => {
    const list = await client.listTools();
    expect(countTokens(JSON.stringify(list))).toBeLessThanOrEqual(BUDGET.toolsList);
    for (const tool of list.tools) expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
  });

  it(`the default verify_build answer on a 252-issue stack ≤ ${BUDGET.bigVerify} tokens, with every error's code and artifact`, async () => {
    const { app, drafts } = generateBrokenStack(42);
    const truth = verify(collectStack(app), collectStack(drafts, { draft: true }));
    const scope = { tenant: tenant.id, package: 'generated' };
    await stageDrafts(t.platform, scope, [...collectStack(app, { draft: true }).artifacts, ...collectStack(drafts, { draft: true }).artifacts]);
    const session = out(await call('create_session', { package: 'generated', goal: 'a generated app' }));
    const r = await call('verify_build', { package: 'generated', session: session.id, fix: false });
    const answer = text(r);
    expect(countTokens(answer)).toBeLessThanOrEqual(BUDGET.bigVerify);
    expect(out(r)).toMatchObject({ errors: 210, warnings: 42, more: { errors: 190, warnings: 42 } });
    for (const e of truth.issues.filter((i) => i.severity === 'error')) {
      expect(answer).toContain(e.code);
      expect(answer).toContain(e.artifact.name);
    }
  });

  it(`a 3-issue answer (the example with its drafts, in a session) ≤ ${BUDGET.smallVerify} tokens`, async () => {
    await call('stage_drafts', { package: 'small', artifacts: [...(await exampleArtifacts('app')), ...(await exampleArtifacts('drafts'))] });
    const session = out(await call('create_session', { package: 'small', goal: 'Track expenses' }));
    const r = await call('verify_build', { package: 'small', session: session.id, fix: false });
    expect(out(r).issues).toHaveLength(3);
    expect(countTokens(text(r))).toBeLessThanOrEqual(BUDGET.smallVerify);
  });
});

describe('the loop over MCP: stage_drafts → verify_build (summary, then a page) → apply_fix → publish', () => {
  it('builds the example to a clean publish', async () => {
    const loop = (name: string, args: Record<string, unknown>) => call(name, args, loopClient);
    const staged = out(await loop('stage_drafts', { package: 'loop', artifacts: [...(await exampleArtifacts('app')), ...(await exampleArtifacts('drafts'))] }));
    expect(staged).toMatchObject({ staged: expect.any(Number), errors: 3, draftVersion: expect.stringMatching(/^[0-9a-f]{32}$/) });
    // Incident #6 (a list view of type "list") is refused by the spec: an error with a safe patch.
    expect(staged.issues.map((i: { code: string }) => i.code)).toEqual(['unknown_measure', 'dangling_dataset', 'invalid_artifact']);
    const session = out(await loop('create_session', { package: 'loop', goal: 'Track expenses with a spending dashboard' }));
    // A summary of one issue: errors first, the rest counted, indexed, and a cursor.
    const first = out(await loop('verify_build', { package: 'loop', session: session.id, fix: false, limit: 1 }));
    expect(first.issues.map((i: { code: string }) => i.code)).toEqual(['unknown_measure']);
    expect(first.more).toMatchObject({ errors: 2, warnings: 0, cursor: expect.any(String) });
    expect(first.unlisted).toEqual([
      { code: 'dangling_dataset', count: 1, artifacts: ['dashboard exp_spending'] },
      { code: 'invalid_artifact', count: 1, artifacts: ['view exp_expense.recent'] },
    ]);
    expect(first.session).toMatchObject({ id: session.id, next: 'repair', remaining: { repairRounds: 2 } });
    expect(first.draftVersion).toBe(staged.draftVersion);
    // The next page.
    const second = out(await loop('verify_build', { package: 'loop', cursor: first.more.cursor, limit: 1 }));
    expect(second.issues.map((i: { code: string }) => i.code)).toEqual(['dangling_dataset']);
    expect(second.issues[0].masks).toContain('unknown_measure');
    const third = out(await loop('verify_build', { package: 'loop', cursor: second.more.cursor, limit: 1 }));
    expect(third.issues.map((i: { code: string }) => i.code)).toEqual(['invalid_artifact']);
    // apply_fix with the offered patch ids (both measure and view type), bound to the draft version.
    const patches = [first.issues[0].patchId, third.issues[0].patchId];
    const applied = out(await loop('apply_fix', { package: 'loop', patches, draftVersion: first.draftVersion }));
    expect(applied.applied).toEqual([expect.objectContaining({ code: 'unknown_measure' }), expect.objectContaining({ code: 'invalid_artifact' })]);
    expect(applied.fixed).toEqual([first.issues[0].id, third.issues[0].id]);
    // The agent repairs the rest by hand: the widget bound to a dataset that does not exist.
    const dashboard = out(await loop('get_draft', { package: 'loop', type: 'dashboard', name: 'exp_spending' })).body;
    dashboard.widgets[2] = { ...dashboard.widgets[2], dataset: 'exp_expense_metrics', values: ['approved_amount'] };
    expect(out(await loop('stage_drafts', { package: 'loop', artifacts: [{ type: 'dashboard', name: 'exp_spending', body: dashboard }] }))).toMatchObject({
      errors: 0,
    });
    const clean = out(await loop('verify_build', { package: 'loop', session: session.id }));
    expect(clean).toMatchObject({ ok: true, publishable: true, next: 'publish', errors: 0 });
    const published = out(await loop('publish', { package: 'loop', session: session.id }));
    expect(published).toMatchObject({ outcome: 'published', ok: true, session: { status: 'stopped', stopReason: 'clean' } });
  });
});

describe('bad input: one clear error each, nothing applied', () => {
  it('an unknown patch id, a stale draftVersion, a cursor of another answer, an unknown code — over MCP and HTTP', async () => {
    await call('stage_drafts', { package: 'bad', artifacts: [...(await exampleArtifacts('app')), ...(await exampleArtifacts('drafts'))] });
    const answer = out(await call('verify_build', { package: 'bad', limit: 1 }));
    const before = answer.draftVersion;
    const cases: Array<[string, string, Record<string, unknown>, RegExp]> = [
      ['apply_fix', 'apply-fix', { patches: ['not-a-patch'] }, /^an unknown patch id/],
      ['apply_fix', 'apply-fix', { patches: [answer.issues[0].patchId], draftVersion: 'f'.repeat(32) }, /^the drafts changed since these patches were offered/],
      ['verify_build', 'verify', { cursor: answer.more.cursor, severity: 'warning' }, /^the cursor belongs to an answer with other filters/],
      ['verify_build', 'verify', { codes: ['unknown_mesure'] }, /^the filter names a code bvl does not have/],
    ];
    for (const [tool, route, args, message] of cases) {
      const r = await call(tool, { package: 'bad', ...args });
      expect(r.isError, tool).toBe(true);
      expect(text(r)).toMatch(new RegExp(`^invalid_request: ${message.source.slice(1)}`));
      const http = await tenant.request(`bad/${route}`, { method: 'POST', json: args });
      expect(http.status).toBe(400);
      const body = (await http.json()) as { error: string; message: string; problems: Array<{ path: string; message: string }> };
      expect(body).toMatchObject({
        error: 'invalid_request',
        message: expect.stringMatching(message),
        problems: [expect.objectContaining({ path: expect.any(String) })],
      });
    }
    // A cursor from another package's answer is one of other drafts.
    const other = out(await call('verify_build', { package: 'small', limit: 1 }));
    expect(text(await call('verify_build', { package: 'bad', cursor: other.more.cursor }))).toMatch(
      /^invalid_request: the cursor belongs to an answer on other drafts/,
    );
    expect(out(await call('verify_build', { package: 'bad', limit: 1 })).draftVersion).toBe(before);
  });
});
