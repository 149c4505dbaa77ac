// `bvl mcp` spawned over stdio (the built binary, as an MCP client launches it) on a copy of the
// example: verify returns the broken build as structured content, fix repairs the files, publish to
// the local embedded database is refused while an L1/L2 error remains, then succeeds. Every tool
// stays inside the folder it serves (.., absolute paths and symbolic links that lead out are refused
// without a byte of what is there), and raw pipes prove the line bounds: -32700 for a line that is
// not JSON, an error with the request's id for a line over the limit, the server still answering.
// The official MCP inspector (--cli --strict) lists the tools with no schema finding.
import { execFile, spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectStack } from '@bvl/metadata';
import { generateBrokenStack } from '@bvl/test-support';
import { verify } from '@bvl/verify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '../../bin/bvl.js');
const TOOL_NAMES = ['verify', 'stage_drafts', 'apply_fix', 'fix', 'review_intent', 'publish', 'card'];
/** The budgets of issue 18 for stdio, in o200k tokens (gpt-tokenizer: deterministic, so a test may hold them). */
const BUDGET = { toolsList: 3000, bigVerify: 8000, smallVerify: 1000 };
const EXAMPLE = join(import.meta.dirname, '../../../../examples/expense-tracker');
let base: string;
let cwd: string;
let outside: string;
let client: Client;
let stderr = '';
/** What lies outside the served folder: a stack with a fixable issue, and text that is no JSON. */
const SECRET = 'root:x:0:0:s3cret-first-bytes';
let outsideStack = '';

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'bvl-mcp-'));
  cwd = join(base, 'work');
  outside = join(base, 'outside');
  await cp(EXAMPLE, cwd, { recursive: true });
  await cp(EXAMPLE, outside, { recursive: true });
  await writeFile(join(outside, 'passwd'), `${SECRET}\n`);
  const dashboard = JSON.parse(await readFile(join(EXAMPLE, 'drafts/dashboards/exp_spending.json'), 'utf8'));
  const objects = await Promise.all(
    ['exp_expense', 'exp_category', 'exp_report'].map(async (o) => JSON.parse(await readFile(join(EXAMPLE, `app/objects/${o}.json`), 'utf8'))),
  );
  const dataset = JSON.parse(await readFile(join(EXAMPLE, 'app/datasets/exp_expense_metrics.json'), 'utf8'));
  outsideStack = JSON.stringify({ objects, datasets: [dataset], dashboards: [dashboard] }, null, 2);
  await writeFile(join(outside, 'stack.json'), outsideStack);
  // Links inside the served folder that lead out of it, and one that stays inside.
  await symlink(join(outside, 'passwd'), join(cwd, 'passwd.json'));
  await symlink(outside, join(cwd, 'elsewhere'));
  await symlink(join(cwd, 'app'), join(cwd, 'app-link'));
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd, env: { PATH: process.env.PATH ?? '' }, stderr: 'pipe' });
  transport.stderr?.on('data', (d) => (stderr += String(d)));
  client = new Client({ name: 'bvl-test', version: '1.0.0' });
  await client.connect(transport);
});
afterAll(async () => {
  await client?.close();
  await rm(base, { recursive: true, force: true });
});

// The SDK client gives up on a request after 60 s; a publish on a loaded 2-core machine can take
// longer, so the client waits as long as the test may (vitest's bound is 120 s).
const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args }, undefined, { timeout: 115_000 })) as CallToolResult;
const errors = (issues: Array<{ code: string; severity: string }>) => issues.filter((i) => i.severity === 'error').map((i) => i.code);

describe('bvl mcp (stdio)', () => {
  it(`offers verify, stage_drafts, apply_fix, fix, publish and card, each with an outputSchema, in ≤ ${BUDGET.toolsList} tokens`, async () => {
    const list = await client.listTools();
    expect(list.tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const t of list.tools) expect(t.outputSchema).toMatchObject({ type: 'object' });
    expect(countTokens(JSON.stringify(list))).toBeLessThanOrEqual(BUDGET.toolsList);
  });

  it('verify on the broken build: the issues come back as structured content, not as an error', async () => {
    const r = await call('verify', { path: 'app', drafts: 'drafts' });
    expect(r.isError).toBeFalsy();
    const out = r.structuredContent as { ok: boolean; issues: Array<{ code: string; severity: string; path: string; at: string }>; line: string };
    expect(out.ok).toBe(false);
    expect(errors(out.issues)).toEqual(['unknown_measure', 'dangling_dataset', 'invalid_artifact']);
    expect(out.issues[0]!.at).toBe('drafts/dashboards/exp_spending.json:4:110');
    expect(out.line).toBe('✗ structure (3 errors) · ✓ renders · – rows (not published) · – widgets (not published)');
    expect(countTokens((r.content as Array<{ text: string }>)[0]!.text)).toBeLessThanOrEqual(BUDGET.smallVerify);
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

describe('bvl mcp: answers sized for a model, and the loop an agent runs', () => {
  it(`verify on a 252-issue stack answers ≤ ${BUDGET.bigVerify} tokens by default, naming every error's code and artifact`, async () => {
    const { app, drafts } = generateBrokenStack(42);
    await writeFile(join(cwd, 'gen-app.json'), JSON.stringify(app));
    await writeFile(join(cwd, 'gen-drafts.json'), JSON.stringify(drafts));
    const r = await call('verify', { path: 'gen-app.json', drafts: 'gen-drafts.json' });
    const answer = (r.content as Array<{ text: string }>)[0]!.text;
    expect(countTokens(answer)).toBeLessThanOrEqual(BUDGET.bigVerify);
    const truth = verify(collectStack(app), collectStack(drafts, { draft: true }));
    for (const e of truth.issues.filter((i) => i.severity === 'error')) {
      expect(answer).toContain(e.code);
      expect(answer).toContain(e.artifact.name);
    }
    expect(r.structuredContent).toMatchObject({ errors: 210, warnings: 42, more: { errors: 190, warnings: 42 } });
  });

  it('stage_drafts → verify (a summary, then a page) → apply_fix → publish, on the files', async () => {
    const dir = join(base, 'loop');
    await cp(join(EXAMPLE, 'app'), join(dir, 'app'), { recursive: true });
    const loop = new Client({ name: 'bvl-test', version: '1.0.0' });
    await loop.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: dir, env: { PATH: process.env.PATH ?? '' } }));
    const run = async (name: string, args: Record<string, unknown>) =>
      (await loop.callTool({ name, arguments: args }, undefined, { timeout: 115_000 })) as CallToolResult;
    try {
      const artifacts = await Promise.all(
        [
          ['view', 'exp_expense.recent', 'views/exp_expense_recent.json'],
          ['dashboard', 'exp_spending', 'dashboards/exp_spending.json'],
          ['app', 'exp_app', 'apps/exp_app.json'],
        ].map(async ([type, name, file]) => ({ type, name, body: JSON.parse(await readFile(join(EXAMPLE, 'drafts', file!), 'utf8')) })),
      );
      const staged = (await run('stage_drafts', { path: 'app', drafts: 'drafts', artifacts })).structuredContent as any;
      expect(staged).toMatchObject({
        staged: 3,
        errors: 3,
        written: ['drafts/views/exp_expense.recent.json', 'drafts/dashboards/exp_spending.json', 'drafts/apps/exp_app.json'],
      });
      expect(staged.issues.map((i: { code: string }) => i.code)).toEqual(['unknown_measure', 'dangling_dataset', 'invalid_artifact']);
      const first = (await run('verify', { path: 'app', drafts: 'drafts', limit: 1 })).structuredContent as any;
      expect(first.issues.map((i: { code: string }) => i.code)).toEqual(['unknown_measure']);
      expect(first.unlisted).toEqual([
        { code: 'dangling_dataset', count: 1, artifacts: ['dashboard exp_spending'] },
        { code: 'invalid_artifact', count: 1, artifacts: ['view exp_expense.recent'] },
      ]);
      const second = (await run('verify', { path: 'app', drafts: 'drafts', cursor: first.more.cursor })).structuredContent as any;
      expect(second.issues.map((i: { code: string }) => i.code)).toEqual(['dangling_dataset', 'invalid_artifact']);
      // A patch id from before a file changed is refused, and nothing is written.
      const applied = (await run('apply_fix', { path: 'app', drafts: 'drafts', patches: [first.issues[0].patchId], draftVersion: first.draftVersion }))
        .structuredContent as any;
      expect(applied).toMatchObject({ written: ['drafts/dashboards/exp_spending.json'], fixed: [first.issues[0].id] });
      expect(JSON.parse(await readFile(join(dir, 'drafts/dashboards/exp_spending.json'), 'utf8')).widgets[0].values).toEqual(['total_amount']);
      const again = await run('apply_fix', { path: 'app', drafts: 'drafts', patches: [first.issues[0].patchId] });
      expect(again.isError).toBe(true);
      expect((again.content as Array<{ text: string }>)[0]!.text).toMatch(/^invalid_request: a patch was offered on drafts that have changed since/);
      // The agent repairs the rest: the widget bound to a dataset that does not exist, and the view type the spec refuses.
      const dashboard = JSON.parse(await readFile(join(dir, 'drafts/dashboards/exp_spending.json'), 'utf8'));
      dashboard.widgets[2] = { ...dashboard.widgets[2], dataset: 'exp_expense_metrics', values: ['approved_amount'] };
      const view = JSON.parse(await readFile(join(dir, 'drafts/views/exp_expense.recent.json'), 'utf8'));
      (view.config ?? view).type = 'grid';
      const repaired = [
        { type: 'dashboard', name: 'exp_spending', body: dashboard },
        { type: 'view', name: 'exp_expense.recent', body: view },
      ];
      expect((await run('stage_drafts', { path: 'app', drafts: 'drafts', artifacts: repaired })).structuredContent).toMatchObject({
        errors: 0,
      });
      expect((await run('verify', { path: 'app', drafts: 'drafts' })).structuredContent).toMatchObject({ ok: true, publishable: true });
      const published = (await run('publish', { path: 'app', drafts: 'drafts', tenant: 'loop', package: 'expense' })).structuredContent;
      expect(published).toMatchObject({ outcome: 'published', ok: true, target: { tenant: 'loop', package: 'expense' } });
    } finally {
      await loop.close();
    }
  });

  it('a name that cannot be a file, drafts outside the folder, an unknown code: one clear error each, nothing written', async () => {
    const bad = [
      ['stage_drafts', { path: 'app', drafts: 'drafts', artifacts: [{ type: 'object', name: '../../x', body: {} }] }, /cannot be a file name/],
      [
        'stage_drafts',
        { path: 'app', drafts: '../outside/drafts', artifacts: [{ type: 'object', name: 'x', body: {} }] },
        /is outside the folder bvl mcp serves/,
      ],
      ['apply_fix', { path: '../outside/app', patches: ['x'] }, /is outside the folder bvl mcp serves/],
      ['verify', { path: 'app', codes: ['unknwn_field'] }, /^invalid_request: the filter names a code bvl does not have/],
    ] as const;
    for (const [tool, args, message] of bad) {
      const r = await call(tool, args);
      expect(r.isError, tool).toBe(true);
      expect((r.content as Array<{ text: string }>)[0]!.text).toMatch(message);
    }
    await expect(readFile(join(outside, 'drafts/objects/x.json'), 'utf8')).rejects.toThrow();
  });
});

describe('bvl mcp as the official MCP inspector sees it', () => {
  it('lists its tools with --strict and no schema finding', async () => {
    const inspector = await realpath(join(import.meta.dirname, '../../../../node_modules/.bin/mcp-inspector'));
    const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      execFile(
        process.execPath,
        [inspector, '--cli', '--method', 'tools/list', '--strict', '--format', 'json', process.execPath, BIN, 'mcp'],
        { cwd, timeout: 60_000, env: { PATH: process.env.PATH ?? '', HOME: base, MCP_INSPECTOR_SECRET_STORE: 'memory' } },
        (e, stdout, stderr) => done({ code: e ? ((e as { code?: number }).code ?? -1) : 0, stdout, stderr }),
      );
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { result: { tools: Array<{ name: string }> }; schemaFindings?: unknown[] };
    expect(out.schemaFindings).toBeUndefined();
    expect(out.result.tools.map((t) => t.name)).toEqual(TOOL_NAMES);
  });
});

describe('bvl mcp stays inside the folder it serves', () => {
  const text = (r: CallToolResult) => (r.content as Array<{ text: string }>)[0]!.text;
  // Built when the test runs: `outside` is known only then.
  const refusals: Array<[string, Record<string, unknown> | (() => Record<string, unknown>)]> = [
    ['a file outside by ..', { path: '../outside/passwd' }],
    ['an absolute path outside', () => ({ path: join(outside, 'passwd') })],
    ['a symbolic link inside that leads out', { path: 'passwd.json' }],
    ['a folder reached through a link that leads out', { path: 'elsewhere/app' }],
    ['drafts outside', { path: 'app', drafts: '../outside/drafts' }],
    ['a stack file outside', { path: '../outside/stack.json' }],
  ];
  for (const [what, args] of refusals)
    it(`refuses ${what}, naming the path, never the content`, async () => {
      for (const tool of ['verify', 'card', 'fix', 'publish']) {
        const r = await call(tool, typeof args === 'function' ? args() : args);
        expect(r.isError, `${tool} ${what}`).toBe(true);
        expect(text(r)).toMatch(/^invalid_request: .* is outside the folder bvl mcp serves/);
        expect(text(r)).not.toContain('s3cret');
        expect(text(r)).not.toContain('root:x');
      }
    });

  it('fix on ../outside changes no file outside (the stack there has a safe fix to apply)', async () => {
    for (const path of ['../outside/stack.json', join(outside, 'stack.json'), 'elsewhere/stack.json']) {
      const r = await call('fix', { path });
      expect(r.isError).toBe(true);
    }
    const dry = await call('fix', { path: '../outside/app', drafts: '../outside/drafts' });
    expect(dry.isError).toBe(true);
    expect(await readFile(join(outside, 'stack.json'), 'utf8')).toBe(outsideStack);
    expect(await readFile(join(outside, 'drafts/dashboards/exp_spending.json'), 'utf8')).toBe(
      await readFile(join(EXAMPLE, 'drafts/dashboards/exp_spending.json'), 'utf8'),
    );
  });

  it('a link that stays inside the folder is followed, and so is an absolute path inside it', async () => {
    expect((await call('verify', { path: 'app-link' })).structuredContent).toMatchObject({ ok: true });
    expect((await call('verify', { path: join(cwd, 'app') })).structuredContent).toMatchObject({ ok: true });
  });

  it('a file inside that is not JSON is named with where it breaks, not with its bytes', async () => {
    await writeFile(join(cwd, 'broken.json'), `${SECRET}\n`);
    const r = await call('verify', { path: 'broken.json' });
    expect(r.isError).toBe(true);
    expect(text(r)).toBe('invalid_request: broken.json is not valid JSON: an unexpected character at line 1, column 1');
  });
});

/** `bvl mcp` as a child process on raw pipes: lines in, lines out, stderr kept. */
function rawMcp() {
  const child = spawn(process.execPath, [BIN, 'mcp'], { cwd, env: { PATH: process.env.PATH ?? '' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (err += String(d)));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  /** Waits for the n-th line of output. */
  const lines = async (n: number) => {
    for (let i = 0; i < 600 && out.split('\n').filter(Boolean).length < n; i++) await new Promise((r) => setTimeout(r, 50));
    return out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id?: unknown; result?: unknown; error?: { code: number; message: string } });
  };
  return { child, lines, stderr: () => err, exited };
}

describe('bvl mcp on stdio: bounded and answering', () => {
  const init = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`;
  const listTools = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' })}\n`;

  it('answers a malformed line with -32700 and a line over the limit with an error naming its id, logs both, and keeps serving', async () => {
    const mcp = rawMcp();
    mcp.child.stdin.write(init);
    expect((await mcp.lines(1))[0]).toMatchObject({ id: 1, result: { serverInfo: { name: 'bvl' } } });
    mcp.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    mcp.child.stdin.write(`{"jsonrpc": "2.0", "id": 2, "method": "tools/list" ${SECRET}\n`);
    // 12 MiB in one line, as an agent pasting a file into an argument would send it.
    const huge = JSON.stringify({ method: 'tools/call', params: { name: 'verify', arguments: { path: 'x'.repeat(12 * 1024 * 1024) } }, jsonrpc: '2.0', id: 3 });
    mcp.child.stdin.write(`${huge}\n`);
    mcp.child.stdin.write(listTools(4));
    const replies = await mcp.lines(4);
    expect(replies.slice(1).map((r) => [r.id, r.error?.code ?? 'result'])).toEqual([
      [undefined, -32700],
      [3, -32600],
      [4, 'result'],
    ]);
    expect(JSON.stringify(replies)).not.toContain('s3cret');
    expect(mcp.stderr()).toContain('bvl mcp: refused a line of');
    expect(mcp.stderr()).toContain(`bvl mcp: refused a JSON-RPC line of ${huge.length} bytes: over the 4194304-byte limit (request id 3)`);
    expect(mcp.stderr()).not.toContain('s3cret');
    mcp.child.stdin.end();
    expect(await mcp.exited).toBe(0);
  });
});
