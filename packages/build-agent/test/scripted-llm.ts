// Test support: a scripted OpenAI-compatible endpoint — a real node:http server on 127.0.0.1 that
// answers POST /v1/chat/completions (non-streaming) from a script and records every request. The
// one fake in the agent's tests: everything behind it (SDK, retries, tools, store) is real.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tool call the scripted model makes; `args` is sent as JSON unless it is already a string. */
export interface ScriptedCall {
  readonly tool: string;
  readonly args?: unknown;
}

/** What the scripted endpoint answers to one request. */
export type ScriptStep =
  | { readonly calls: readonly ScriptedCall[]; readonly usage?: Usage }
  | { readonly say: string; readonly usage?: Usage }
  | { readonly json: unknown; readonly usage?: Usage }
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body?: unknown }
  /** Never answers: the request stays open until the client gives up (abort, timeout) or the server closes. */
  | { readonly hang: true }
  /** This JSON as the whole 200 response body (odd shapes some endpoints send). */
  | { readonly raw: unknown };

/** Token usage the scripted answer reports. */
export interface Usage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
}

/** A request the endpoint received. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: the recorded JSON is read freely by tests
  readonly body: any;
}

/** A step, or a function of the request (and its index) that returns one. */
export type Script = ReadonlyArray<ScriptStep | ((req: RecordedRequest, index: number) => ScriptStep)>;

/** A running scripted endpoint. */
export interface ScriptedLlm {
  /** The OpenAI base URL (`http://127.0.0.1:<port>/v1`). */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** The tool-message contents the agent sent back, parsed, in order. */
  toolResults(): Array<{ tool: string; content: unknown }>;
  close(): Promise<void>;
}

/** Answer when the script has run out: the model ends its turn. */
const EXHAUSTED: ScriptStep = { say: 'I have nothing more to do.' };

let callIds = 0;

function completion(step: Exclude<ScriptStep, { status: number } | { hang: true } | { raw: unknown }>, model: string) {
  const usage = step.usage ?? { prompt_tokens: 100, completion_tokens: 20 };
  const message =
    'calls' in step
      ? {
          role: 'assistant',
          content: null,
          tool_calls: step.calls.map((c) => ({
            id: `call_${++callIds}`,
            type: 'function',
            function: { name: c.tool, arguments: typeof c.args === 'string' ? c.args : JSON.stringify(c.args ?? {}) },
          })),
        }
      : { role: 'assistant', content: 'say' in step ? step.say : JSON.stringify(step.json), refusal: null };
  return {
    id: `chatcmpl_${callIds}`,
    object: 'chat.completion',
    created: 1_770_000_000,
    model,
    choices: [{ index: 0, message, finish_reason: 'calls' in step ? 'tool_calls' : 'stop', logprobs: null }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts a scripted endpoint on 127.0.0.1 (port 0: the OS picks a free one). */
export async function startScriptedLlm(script: Script): Promise<ScriptedLlm> {
  const requests: RecordedRequest[] = [];
  let served = 0;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, body };
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    requests.push(recorded);
    const index = served++;
    const entry = script[index] ?? EXHAUSTED;
    const step = typeof entry === 'function' ? entry(recorded, index) : entry;
    if ('hang' in step) return;
    if ('raw' in step) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(step.raw));
      return;
    }
    if ('status' in step) {
      res
        .writeHead(step.status, { 'content-type': 'application/json', ...step.headers })
        .end(JSON.stringify(step.body ?? { error: { message: `scripted ${step.status}`, type: 'scripted' } }));
      return;
    }
    const model = (body as { model?: string })?.model ?? 'scripted';
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(step, model)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    toolResults() {
      const last = requests.at(-1)?.body?.messages ?? [];
      const names = new Map<string, string>();
      for (const m of last) for (const c of m.tool_calls ?? []) names.set(c.id, c.function?.name);
      return last
        .filter((m: { role: string }) => m.role === 'tool')
        .map((m: { tool_call_id: string; content: string }) => ({ tool: names.get(m.tool_call_id) ?? '?', content: JSON.parse(m.content) }));
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
}
