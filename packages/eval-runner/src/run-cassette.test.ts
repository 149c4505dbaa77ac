import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentClient } from '@bvl/build-agent';
import { startScriptedLlm } from '@bvl/build-agent/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CassetteError, openCassette, requestKey } from './run-cassette.ts';

// The cassette at the HTTP level of the real `openai` client (its `fetch` option): recorded through
// a scripted OpenAI-compatible server on 127.0.0.1, replayed with the server gone.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bvl-cassette-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ask = (client: ReturnType<typeof createAgentClient>, text: string) =>
  client.openai.chat.completions.create({ model: client.model, messages: [{ role: 'user', content: text }] });

describe('a cassette', () => {
  it('records each exchange as a plain JSON file, and replays it with no endpoint', async () => {
    const llm = await startScriptedLlm([{ say: 'first answer' }, { say: 'second answer' }]);
    const cassette = await openCassette({ mode: 'record', dir: join(dir, 'rec'), fetch: globalThis.fetch });
    const client = createAgentClient({ baseURL: llm.url, model: 'model-a', fetch: cassette.session().fetch });
    expect((await ask(client, 'hello')).choices[0]?.message.content).toBe('first answer');
    expect((await ask(client, 'hello again')).choices[0]?.message.content).toBe('second answer');
    await llm.close();

    const files = (await readdir(join(dir, 'rec'))).sort();
    expect(files).toHaveLength(2);
    const entry = JSON.parse(await readFile(join(dir, 'rec', files[0]!), 'utf8'));
    expect(entry).toMatchObject({ cassette: 1, request: { method: 'POST', path: '/chat/completions', body: { model: 'model-a' } }, response: { status: 200 } });
    expect(files[0]).toBe(`${entry.key}.json`);

    const replay = await openCassette({ mode: 'replay', dir: join(dir, 'rec') });
    expect(replay.size()).toBe(2);
    expect(replay.models()).toEqual(['model-a']);
    // Another base URL, the server gone: the cassette answers by what was asked.
    const session = replay.session();
    const offline = createAgentClient({ baseURL: 'http://replay.invalid/v1', model: 'model-a', fetch: session.fetch });
    expect((await ask(offline, 'hello again')).choices[0]?.message.content).toBe('second answer');
    expect((await ask(offline, 'hello')).choices[0]?.message.content).toBe('first answer');
    expect(session.misses()).toEqual([]);
  });

  it('a request it has no answer for is a 404 naming it, and the session counts it as a miss', async () => {
    const replay = await openCassette({ mode: 'replay', dir: join(dir, 'rec') });
    const session = replay.session();
    const client = createAgentClient({ baseURL: 'http://replay.invalid/v1', model: 'model-b', fetch: session.fetch });
    await expect(ask(client, 'hello')).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('has no answer for /chat/completions for model "model-b"'),
    });
    expect(session.misses()).toEqual([
      expect.stringMatching(/^\/chat\/completions for model "model-b" — last message \(user\): "hello" \(key [0-9a-f]{12}\)$/),
    ]);
    // Another session starts with no miss.
    expect(replay.session().misses()).toEqual([]);
  });

  it('keys a request by what it asks: ids, times, elapsed milliseconds and eval tenant names masked, key order ignored', () => {
    const a = {
      model: 'm',
      messages: [
        {
          role: 'user',
          content:
            'session 0b4f9c3e-1d2a-4c5b-9e8f-7a6b5c4d3e2f in bvl_eval_12_0123456789 at 2026-03-15T10:00:00.000Z {"usage":{"elapsedMs":1204},"remaining":{"ms":3000}}',
        },
      ],
    };
    const b = {
      messages: [
        {
          content:
            'session 11111111-2222-4333-8444-555555555555 in bvl_eval_99_abcdefabcd at 2027-01-01T00:00:00Z {"usage":{"elapsedMs":77},"remaining":{"ms":12.5}}',
          role: 'user',
        },
      ],
      model: 'm',
    };
    expect(requestKey('POST', '/v1/chat/completions', a)).toBe(requestKey('post', '/api/v1/chat/completions', b));
    expect(requestKey('POST', '/v1/chat/completions', a)).not.toBe(requestKey('POST', '/v1/chat/completions', { ...a, model: 'n' }));
  });

  it('a missing, empty or malformed cassette is one clear error naming the file, before anything runs', async () => {
    await expect(openCassette({ mode: 'replay', dir: join(dir, 'nope') })).rejects.toThrow(
      new CassetteError(`cassette ${join(dir, 'nope')} cannot be read: ENOENT`),
    );
    await mkdir(join(dir, 'empty'));
    await expect(openCassette({ mode: 'replay', dir: join(dir, 'empty') })).rejects.toThrow(
      /holds no recorded exchange \(no \*\.json file\); record one with --record/,
    );
    await mkdir(join(dir, 'bad'));
    await writeFile(join(dir, 'bad', 'a.json'), '{ not json');
    await expect(openCassette({ mode: 'replay', dir: join(dir, 'bad') })).rejects.toThrow(/cassette file .*bad\/a\.json is not JSON/);
    await writeFile(join(dir, 'bad', 'a.json'), JSON.stringify({ cassette: 1, key: 'x', request: {}, response: {}, recordedAt: 'now' }));
    await expect(openCassette({ mode: 'replay', dir: join(dir, 'bad') })).rejects.toThrow(
      /bad\/a\.json is not a cassette entry: at \/key: must be the sha256 hex of the request/,
    );
    const files = await readdir(join(dir, 'rec'));
    const edited = JSON.parse(await readFile(join(dir, 'rec', files[0]!), 'utf8'));
    edited.request.body.model = 'edited';
    await writeFile(join(dir, 'bad', 'a.json'), JSON.stringify(edited));
    await expect(openCassette({ mode: 'replay', dir: join(dir, 'bad') })).rejects.toThrow(/its key does not match its request/);
  });
});
