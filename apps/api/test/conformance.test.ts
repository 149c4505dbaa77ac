// The API checked by real clients from the npm registry, on a real listening server (the app on a
// test platform, a tenant of its own, on PGlite or PostgreSQL): Redocly CLI
// lints the OpenAPI document it serves (0 errors, 0 warnings under the recommended rules), the
// official MCP inspector lists the tools over streamable HTTP with --strict (no schema finding),
// and a wrong token is reported as one (RFC 6750 `invalid_token`) by the inspector and by a plain
// SDK client. The stdio transport (`bvl mcp`) gets the same inspector run in apps/cli.
import { execFile } from 'node:child_process';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../src/tools.ts';
import { openTestApp } from './test-app.ts';

const ROOT = join(import.meta.dirname, '../../..');
const run = promisify(execFile);
let t: Awaited<ReturnType<typeof openTestApp>>;
let server: ReturnType<typeof serve>;
let url: string;
let token: string;
let base: string;
let cwd: string;

/** A registry tool's script, run by the Node running the suite (not whatever `node` PATH finds). */
async function tool(bin: string, args: string[], options: { env?: Record<string, string> } = {}) {
  const script = await realpath(join(ROOT, 'node_modules/.bin', bin));
  try {
    const r = await run(process.execPath, [script, ...args], {
      cwd,
      timeout: 60_000,
      maxBuffer: 64 * 1024 * 1024,
      // No telemetry, no update check, no keychain, and a home of its own: nothing leaves the machine or the test.
      env: {
        PATH: process.env.PATH ?? '',
        HOME: cwd,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        MCP_INSPECTOR_SECRET_STORE: 'memory',
        ...options.env,
      },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: x.code ?? -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

// The app on a test platform (a tenant of its own, on PGlite or PostgreSQL), listening on 127.0.0.1.
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'bvl-conformance-'));
  t = await openTestApp();
  const a = await t.tenant('conform');
  token = a.token;
  base = a.base;
  await a.request('expense/drafts/object/exp_x', { method: 'PUT', json: { name: 'exp_x', fields: { title: { type: 'text' } } } });
  server = await new Promise<ReturnType<typeof serve>>((done) => {
    const s = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' }, () => done(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((done) => server?.close(() => done()));
  await t?.close();
  await rm(cwd, { recursive: true, force: true });
});

describe('the OpenAPI document', () => {
  it('lints clean with Redocly CLI (recommended rules): 0 errors, 0 warnings', async () => {
    const doc = await (await fetch(`${url}/openapi.json`)).text();
    await writeFile(join(cwd, 'openapi.json'), doc);
    const r = await tool('redocly', ['lint', 'openapi.json', '--config', join(ROOT, 'apps/api/redocly.yaml'), '--format', 'json']);
    const report = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; message: string }>;
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(r.code).toBe(0);
  });

  it('names every operation once, declares the server it came from, and the 4xx answers of every operation that takes input', async () => {
    const doc = (await (await fetch(`${url}/openapi.json`)).json()) as {
      servers: Array<{ url: string }>;
      security: unknown[];
      paths: Record<string, Record<string, { operationId: string; security?: unknown[]; responses: Record<string, unknown> }>>;
    };
    expect(doc.servers).toEqual([{ url: url, description: 'This bvl server' }]);
    expect(doc.security).toEqual([{ bearer: [] }]);
    const ops = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, ...op })));
    const ids = ops.map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    // Every service tool is an operation of the same name (discard_draft is the one-draft form of discard_drafts).
    for (const name of Object.keys(TOOLS)) expect(ids).toContain(name);
    for (const op of ops) {
      if (op.path === '/healthz') {
        expect(op.security).toEqual([]);
        continue;
      }
      expect(Object.keys(op.responses), op.operationId).toEqual(expect.arrayContaining(['400', '401', '404', '413', '415', '503']));
    }
  });

  it('answers a wrong method with 405 and Allow, and a body that is not JSON with 415, over real HTTP', async () => {
    const pkg = `${url}${base}/expense`;
    const wrong = await fetch(`${pkg}/verify`, { headers: { authorization: `Bearer ${token}` } });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    // curl -d without -H: a form-encoded body, which would otherwise pass unread as "no options".
    const form = await fetch(`${pkg}/verify`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: new URLSearchParams({ session: 'x' }) });
    expect(form.status).toBe(415);
    expect(await form.json()).toMatchObject({ error: 'unsupported_media_type' });
    // No body at all, and no content type: no options.
    expect((await fetch(`${pkg}/verify`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});

describe('MCP over streamable HTTP, as the official inspector sees it', () => {
  it('lists every tool with --strict and no schema finding', async () => {
    const r = await tool('mcp-inspector', [
      '--cli',
      '--method',
      'tools/list',
      '--strict',
      '--format',
      'json',
      '--server-url',
      `${url}/mcp`,
      '--transport',
      'http',
      '--header',
      `Authorization: Bearer ${token}`,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { result: { tools: Array<{ name: string }> }; schemaFindings?: unknown[] };
    expect(out.schemaFindings).toBeUndefined();
    // Every tool but the HTTP-only ones (mcp: false).
    expect(out.result.tools.map((t) => t.name).sort()).toEqual(
      Object.values(TOOLS)
        .filter((t: { mcp?: false }) => t.mcp !== false)
        .map((t) => t.name)
        .sort(),
    );
  });

  it('a wrong token is a 401 with error="invalid_token"; clients that do not start OAuth report it as such', async () => {
    const r = await fetch(`${url}/mcp`, { method: 'POST', headers: { authorization: 'Bearer wrong', 'content-type': 'application/json' }, body: '{}' });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="bvl", error="invalid_token", error_description="/);
    // The inspector, told not to start an interactive OAuth flow (as in CI): it says the token is not valid.
    const inspector = await tool('mcp-inspector', [
      '--cli',
      '--method',
      'tools/list',
      '--stored-auth-only',
      '--server-url',
      `${url}/mcp`,
      '--transport',
      'http',
      '--header',
      'Authorization: Bearer wrong',
    ]);
    expect(inspector.code).not.toBe(0);
    expect(inspector.stderr).toContain('the bearer token is not valid');
    // A plain SDK client with the token in its request headers.
    const client = new Client({ name: 'bvl-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: 'Bearer wrong' } } });
    await expect(client.connect(transport)).rejects.toMatchObject({ code: 401, message: expect.stringContaining('the bearer token is not valid') });
  });
});
