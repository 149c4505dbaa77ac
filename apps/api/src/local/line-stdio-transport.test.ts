import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { LineStdioTransport } from './line-stdio-transport.ts';

/** A transport over in-memory streams: what it passes on, what it answers, what it logs. */
async function open(maxLineBytes = 1024) {
  const input = new PassThrough();
  const output = new PassThrough();
  const logged: string[] = [];
  const received: JSONRPCMessage[] = [];
  const t = new LineStdioTransport(input, output, { maxLineBytes, log: (l) => logged.push(l) });
  t.onmessage = (m) => received.push(m);
  let closed = false;
  t.onclose = () => {
    closed = true;
  };
  await t.start();
  let out = '';
  output.on('data', (d) => (out += String(d)));
  const settle = () => new Promise((r) => setImmediate(r));
  return {
    input,
    logged,
    received,
    replies: async () => {
      await settle();
      return out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id?: unknown; error?: { code: number; message: string; data?: unknown } });
    },
    closed: () => closed,
    settle,
  };
}

const ping = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`;

describe('LineStdioTransport', () => {
  it('passes each line on as a message, however the bytes are split', async () => {
    const t = await open();
    const text = ping(1) + ping(2);
    for (const part of [text.slice(0, 5), text.slice(5, 40), text.slice(40)]) t.input.write(part);
    await t.settle();
    expect(t.received).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]);
    expect(await t.replies()).toEqual([]);
  });

  it('answers a line that is not JSON with -32700, quoting nothing of it, and keeps serving', async () => {
    const t = await open();
    t.input.write('{"jsonrpc": "2.0", "id": 3, "method": "ping", oops}\n');
    t.input.write(ping(4));
    const [reply] = await t.replies();
    expect(reply).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: expect.stringMatching(/^Parse error/) } });
    expect(JSON.stringify(reply)).not.toContain('oops');
    expect(t.received).toEqual([{ jsonrpc: '2.0', id: 4, method: 'ping' }]);
    expect(t.logged).toEqual(['bvl mcp: refused a line of 51 bytes that is not JSON']);
  });

  it('answers JSON that is not a JSON-RPC message with -32600, with its id when it has one', async () => {
    const t = await open();
    t.input.write('{"id": 5, "hello": true}\n[1, 2]\n');
    expect((await t.replies()).map((r) => [r.id, r.error?.code])).toEqual([
      [5, -32600],
      [undefined, -32600],
    ]);
    expect(t.received).toEqual([]);
  });

  it('skips a line over the limit to its end, answers it with -32600 and its id, logs it, and keeps serving', async () => {
    const t = await open(1024);
    const big = JSON.stringify({ method: 'tools/call', params: { name: 'verify', arguments: { path: 'x'.repeat(5000) } }, jsonrpc: '2.0', id: 9 });
    // In pieces, as a pipe delivers it; the next request follows on the same chunk as the big one's end.
    t.input.write(big.slice(0, 700));
    t.input.write(big.slice(700, 3000));
    t.input.write(`${big.slice(3000)}\n${ping(10)}`);
    const replies = await t.replies();
    expect(replies).toEqual([
      {
        jsonrpc: '2.0',
        id: 9,
        error: {
          code: -32600,
          message: expect.stringMatching(/^the message is 5\d{3} bytes, over bvl mcp's 1024-byte limit/),
          data: { bytes: big.length, limit: 1024 },
        },
      },
    ]);
    expect(t.received).toEqual([{ jsonrpc: '2.0', id: 10, method: 'ping' }]);
    expect(t.logged).toEqual([`bvl mcp: refused a JSON-RPC line of ${big.length} bytes: over the 1024-byte limit (request id 9)`]);
    expect(t.closed()).toBe(false);
  });

  it('finds the id of an oversized line when it comes first, and leaves it out when it cannot be seen', async () => {
    const t = await open(100);
    t.input.write(`{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"p":"${'y'.repeat(300)}"}}\n`);
    t.input.write(`{"method":"tools/call","params":{"id": 7, "p":"${'y'.repeat(300)}"}}\n`);
    expect((await t.replies()).map((r) => [r.id, r.error?.code])).toEqual([
      ['a-1', -32600],
      [undefined, -32600],
    ]);
  });

  it('takes a last line without a newline at the end of input, then closes', async () => {
    const t = await open();
    t.input.end(ping(11).trim());
    await t.settle();
    expect(t.received).toEqual([{ jsonrpc: '2.0', id: 11, method: 'ping' }]);
    expect(t.closed()).toBe(true);
  });
});
