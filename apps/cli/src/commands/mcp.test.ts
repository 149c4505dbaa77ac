// `bvl mcp` spawned over stdio (the built binary, as an MCP client launches it) on a copy of the
// example: verify returns the broken build as structured content, fix repairs the files, publish to
// the local embedded database is refused while an L1/L2 error remains, then succeeds.
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '../../bin/bvl.js');
const EXAMPLE = join(import.meta.dirname, '../../../../examples/expense-tracker');
let cwd: string;
let client: Client;
let stderr = '';

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'bvl-mcp-'));
  await cp(EXAMPLE, cwd, { recursive: true });
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd, env: { PATH: process.env.PATH ?? '' }, stderr: 'pipe' });
  transport.stderr?.on('data', (d) => (stderr += String(d)));
  client = new Client({ name: 'bvl-test', version: '1.0.0' });
  await client.connect(transport);
});
afterAll(async () => {
  await client?.close();
  await rm(cwd, { recursive: true, force: true });
});

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
const errors = (issues: Array<{ code: string; severity: string }>) => issues.filter((i) => i.severity === 'error').map((i) => i.code);

describe('bvl mcp (stdio)', () => {
  it('offers verify, fix, publish and card, each with an outputSchema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['verify', 'fix', 'publish', 'card']);
    for (const t of tools) expect(t.outputSchema).toMatchObject({ type: 'object' });
  });

  it('verify on the broken build: the issues come back as structured content, not as an error', async () => {
    const r = await call('verify', { path: 'app', drafts: 'drafts' });
    expect(r.isError).toBeFalsy();
    const out = r.structuredContent as { ok: boolean; issues: Array<{ code: string; severity: string; path: string }>; line: string };
    expect(out.ok).toBe(false);
    expect(errors(out.issues)).toEqual(['unknown_measure', 'dangling_dataset']);
    expect(out.line).toBe('✗ structure (2 errors) · ✓ renders · – rows (not published) · – widgets (not published) · ⚠ 1 warning');
  });

  it('publish is refused while L1/L2 has an error, and nothing reaches the database', async () => {
    const r = await call('publish', { path: 'app', drafts: 'drafts', tenant: 'local' });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ outcome: 'refused', published: false, target: { tenant: 'local', package: 'default' } });
  });

  it('fix rewrites the drafts files with the safe patches; the agent repairs the rest; publish then goes through', async () => {
    const fixed = await call('fix', { path: 'app', drafts: 'drafts' });
    expect(fixed.isError).toBeFalsy();
    const out = fixed.structuredContent as { written: string[]; issues: Array<{ code: string; severity: string }> };
    expect(out.written).toEqual(['drafts/dashboards/exp_spending.json', 'drafts/views/exp_expense_recent.json']);
    expect(errors(out.issues)).toEqual(['dangling_dataset']);
    const card = (await call('card', { path: 'app', drafts: 'drafts', html: true })).structuredContent as { line: string; html: string };
    expect(card.line).toBe('✗ structure (1 error) · ✓ renders · – rows (not published) · – widgets (not published)');
    expect(card.html).toContain('dangling_dataset');
    // Without the broken drafts the app itself publishes into the local embedded database.
    const published = await call('publish', { path: 'app', tenant: 'local', package: 'expense' });
    expect(published.isError).toBeFalsy();
    expect(published.structuredContent).toMatchObject({
      outcome: 'published',
      ok: true,
      target: { tenant: 'local', package: 'expense', database: expect.stringMatching(/PGlite/) },
    });
    expect(JSON.parse(await readFile(join(cwd, 'drafts/dashboards/exp_spending.json'), 'utf8')).widgets[0].values).toEqual(['total_amount']);
  });

  it('a path that cannot be read is an error result naming it; the server stays up', async () => {
    const r = await call('verify', { path: 'nope' });
    expect(r.isError).toBe(true);
    expect((r.content as Array<{ text: string }>)[0]!.text).toMatch(/^invalid_request: cannot read nope: no such file or directory/);
    expect((await call('verify', { path: 'app' })).structuredContent).toMatchObject({ ok: true });
    expect(stderr).toBe('');
  });
});
