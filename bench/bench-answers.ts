// The answers bench (issue 18): what a model reads of bvl, in tokens of a real tokenizer
// (gpt-tokenizer, o200k_base), over both MCP transports through the real SDK client — `bvl mcp`
// (the built binary on stdio) and `/mcp` of the HTTP API (a real server on 127.0.0.1, embedded
// PGlite in memory). On a generated stack broken the way agents break one (generateBrokenStack(42):
// 252 issues, 210 errors) and on the example with its drafts (3 issues). Token counts are
// deterministic: each figure is judged against its budget. Standalone: `npx tsx bench/bench-answers.ts`.

import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createApp, createToken } from '@bvl/api';
import { collectStack, readSource } from '@bvl/metadata';
import { openPlatform, stageDrafts } from '@bvl/platform';
import { generateBrokenStack } from '@bvl/test-support';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { Goal } from './measure.ts';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'apps/cli/bin/bvl.js');
const EXAMPLE = join(ROOT, 'examples/expense-tracker');
/** Units of the broken generated stack: 42 × 6 = 252 issues. */
const UNITS = 42;

/** The budgets of issue 18, in o200k tokens. */
export const TOKEN_BUDGETS = { bigVerify: 8000, smallVerify: 1000, toolsListStdio: 3000, toolsListHttp: 6000 } as const;

type Log = (line: string) => void;

/** What the model reads of a tool result: its text content. */
const textOf = (r: CallToolResult) => (r.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');
const kb = (text: string) => `${(Buffer.byteLength(text) / 1024).toFixed(1)} KB`;

/** Every error's code and artifact name appear in the text (what the budget demands of a truncated answer). */
function everyErrorNamed(text: string, errors: ReadonlyArray<{ code: string; artifact: { name: string } }>): boolean {
  return errors.every((e) => text.includes(e.code) && text.includes(e.artifact.name));
}

/** Runs the answers bench; returns each budget as a goal. */
export async function benchAnswers(log: Log): Promise<Goal[]> {
  const goals: Goal[] = [];
  const figure = (label: string, text: string, budget?: number) => {
    const tokens = countTokens(text);
    log(`${label}: ${kb(text)}, ${tokens} tokens${budget ? ` (budget ${budget})` : ''}`);
    if (budget) goals.push({ name: `${label} ≤ ${budget} tokens`, value: tokens, limit: budget, unit: 'tokens' });
    return tokens;
  };
  const { app, drafts } = generateBrokenStack(UNITS);
  const truth = (await import('@bvl/verify')).verify(collectStack(app), collectStack(drafts, { draft: true }));
  const errors = truth.issues.filter((i) => i.severity === 'error');
  log(
    `generated stack: generateBrokenStack(${UNITS}) — ${truth.issues.length} issues (${errors.length} errors) over ${collectStack(app).artifacts.length} artifacts`,
  );

  const dir = await mkdtemp(join(tmpdir(), 'bvl-bench-answers-'));
  const platform = await openPlatform({ dataDir: 'memory' });
  let server: ReturnType<typeof serve> | undefined;
  const clients: Client[] = [];
  try {
    await writeFile(join(dir, 'app.json'), JSON.stringify(app));
    await writeFile(join(dir, 'drafts.json'), JSON.stringify(drafts));
    await cp(EXAMPLE, join(dir, 'example'), { recursive: true });

    // stdio: the built `bvl mcp`, as an MCP client launches it.
    const stdio = new Client({ name: 'bench', version: '1' });
    clients.push(stdio);
    await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: dir, env: { PATH: process.env.PATH ?? '' } }));
    figure('stdio tools/list', JSON.stringify(await stdio.listTools()), TOKEN_BUDGETS.toolsListStdio);
    const big = textOf((await stdio.callTool({ name: 'verify', arguments: { path: 'app.json', drafts: 'drafts.json' } })) as CallToolResult);
    figure(`stdio verify, ${truth.issues.length} issues (default summary)`, big, TOKEN_BUDGETS.bigVerify);
    log(`  every error's code and artifact in it: ${everyErrorNamed(big, errors) ? 'yes' : 'NO'}`);
    goals.push({
      name: "stdio verify names every error's code and artifact",
      value: everyErrorNamed(big, errors) ? 1 : 0,
      limit: 1,
      unit: 'yes',
      atLeast: true,
    });
    const full = textOf(
      (await stdio.callTool({ name: 'verify', arguments: { path: 'app.json', drafts: 'drafts.json', detail: 'full', limit: 1000 } })) as CallToolResult,
    );
    figure(`stdio verify, ${truth.issues.length} issues (detail full, every issue)`, full);
    const small = textOf((await stdio.callTool({ name: 'verify', arguments: { path: 'example/app', drafts: 'example/drafts' } })) as CallToolResult);
    figure('stdio verify, the example (3 issues)', small, TOKEN_BUDGETS.smallVerify);

    // HTTP: the API on a real listening server; MCP at /mcp with a tenant's token.
    const api = createApp({ platform, logger: { info() {}, error() {} }, version: 'bench' });
    const { token } = await createToken(platform, { tenant: 'bench' });
    server = await new Promise<ReturnType<typeof serve>>((done) => {
      const s = serve({ fetch: api.fetch, port: 0, hostname: '127.0.0.1' }, () => done(s));
    });
    const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    await stageDrafts(platform, { tenant: 'bench', package: 'gen' }, [
      ...collectStack(app, { draft: true }).artifacts,
      ...collectStack(drafts, { draft: true }).artifacts,
    ]);
    const example = [
      ...(await readSource(join(EXAMPLE, 'app'), { draft: true })).artifacts,
      ...(await readSource(join(EXAMPLE, 'drafts'), { draft: true })).artifacts,
    ];
    await stageDrafts(platform, { tenant: 'bench', package: 'example' }, example);
    const http = new Client({ name: 'bench', version: '1' });
    clients.push(http);
    await http.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    figure('http tools/list', JSON.stringify(await http.listTools()), TOKEN_BUDGETS.toolsListHttp);
    const session = (await http.callTool({ name: 'create_session', arguments: { package: 'gen', goal: 'bench' } })) as CallToolResult;
    const id = (session.structuredContent as { id: string }).id;
    const hbig = textOf((await http.callTool({ name: 'verify_build', arguments: { package: 'gen', session: id, fix: false } })) as CallToolResult);
    figure(`http verify_build in a session, ${truth.issues.length} issues (default summary)`, hbig, TOKEN_BUDGETS.bigVerify);
    goals.push({
      name: "http verify_build names every error's code and artifact",
      value: everyErrorNamed(hbig, errors) ? 1 : 0,
      limit: 1,
      unit: 'yes',
      atLeast: true,
    });
    const cursor = (JSON.parse(hbig) as { more?: { cursor?: string } }).more?.cursor;
    if (cursor)
      figure(
        'http verify_build, the next page',
        textOf((await http.callTool({ name: 'verify_build', arguments: { package: 'gen', cursor } })) as CallToolResult),
      );
    const esession = (await http.callTool({ name: 'create_session', arguments: { package: 'example', goal: 'bench' } })) as CallToolResult;
    const hsmall = textOf(
      (await http.callTool({
        name: 'verify_build',
        arguments: { package: 'example', session: (esession.structuredContent as { id: string }).id, fix: false },
      })) as CallToolResult,
    );
    figure('http verify_build in a session, the example (3 issues)', hsmall, TOKEN_BUDGETS.smallVerify);
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
    await platform.close();
    await rm(dir, { recursive: true, force: true });
  }
  return goals;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const goals = await benchAnswers((l) => console.log(l));
  const { goalLine } = await import('./measure.ts');
  for (const g of goals) console.log(goalLine(g));
}
