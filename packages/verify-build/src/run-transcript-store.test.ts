import { randomUUID } from 'node:crypto';
import { dropTenant, type Platform } from '@bvl/platform';
import { openTestPlatform, tenants } from '@bvl/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundTurn, MAX_RESULT_CHARS } from './bound-turn.ts';
import { REDACTED, redactSecrets } from './redact-secrets.ts';
import { createSession } from './run-session-store.ts';
import { appendTurn, readTranscript } from './run-transcript-store.ts';

let platform: Platform;
const made = tenants(() => platform);
beforeAll(async () => {
  platform = await openTestPlatform(() => new Date('2026-03-15T10:00:00Z'));
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
});

describe('redactSecrets', () => {
  const cases: Array<[string, string, string]> = [
    ['a bearer credential', 'Authorization: Bearer abcdefghijkl0123', 'Bearer'],
    ['an OpenAI key', 'key sk-proj-abcdefghijklmnop0123 here', 'sk-proj-abcdefghijklmnop0123'],
    ['a bvl API token', `token bvl_0123456789abcdef_${'x'.repeat(43)}`, 'bvl_0123456789abcdef_'],
    ['an env assignment', 'OPENAI_API_KEY=hunter2hunter2', 'hunter2hunter2'],
    ['a JSON key', '{"apiKey":"s3cr3t-value","x":1}', 's3cr3t-value'],
    ['a password', 'password: "correct horse"', 'correct'],
    ['an AWS key', 'AKIAABCDEFGHIJKLMNOP', 'AKIAABCDEFGHIJKLMNOP'],
    ['a GitHub token', `ghp_${'a'.repeat(36)}`, 'ghp_'],
    ['a private key', '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----', 'MIIE'],
  ];
  it.each(cases)('removes %s', (_name, text, secret) => {
    const out = redactSecrets(text);
    expect(out).toContain(REDACTED);
    if (secret !== 'Bearer') expect(out).not.toContain(secret);
    else expect(out).not.toContain('abcdefghijkl0123');
  });
  it('removes a known value wherever it appears, and leaves counters and prose alone', () => {
    expect(redactSecrets('the key is my-local-key!', ['my-local-key'])).toBe(`the key is ${REDACTED}!`);
    const plain = '{"tokensIn":120,"budgetTokens":5000,"secretive":false,"message":"Widget budget_left asks for measure amount"}';
    expect(redactSecrets(plain)).toBe(plain);
  });
});

describe('appendTurn / readTranscript', () => {
  async function session() {
    const tenant = made.next('tr');
    const s = await createSession(platform, { tenant, package: 'app', goal: 'g' });
    return { tenant, session: s.id };
  }

  it('stores turns in order with their tool calls, redacted, each text bounded', async () => {
    const ref = await session();
    await appendTurn(platform, ref, { role: 'user', content: 'Goal: x' });
    await appendTurn(
      platform,
      ref,
      {
        role: 'assistant',
        content: 'using key-of-the-endpoint',
        toolCalls: [{ id: 'c1', name: 'verify_build', arguments: '{"authorization":"Bearer abcdefghijklmnop"}', result: 'r'.repeat(MAX_RESULT_CHARS + 50) }],
        tokensIn: 10,
        tokensOut: 2,
        tokensCached: 8,
        tokensReasoning: 1,
        retries: 1,
        ms: 30,
      },
      { known: ['key-of-the-endpoint'] },
    );
    const t = await readTranscript(platform, { tenant: ref.tenant, id: ref.session });
    expect(t.map((x) => [x.turn, x.role])).toEqual([
      [0, 'user'],
      [1, 'assistant'],
    ]);
    expect(t[1]).toMatchObject({
      content: `using ${REDACTED}`,
      tokensIn: 10,
      tokensOut: 2,
      tokensCached: 8,
      tokensReasoning: 1,
      retries: 1,
      ms: 30,
      condensed: false,
    });
    expect(t[1]!.toolCalls[0]!.arguments).not.toContain('abcdefghijklmnop');
    expect(t[1]!.toolCalls[0]!.result).toMatch(/… \[cut: 50 more characters\]$/);
    // Another tenant does not see it.
    expect(await readTranscript(platform, { tenant: made.next('other'), id: ref.session })).toEqual([]);
  });

  it('past the bound, the oldest turns are condensed with a marker — never dropped — and the newest stays whole', async () => {
    const ref = await session();
    const big = 'x'.repeat(1_000);
    const maxChars = 5_000;
    const n = 9;
    for (let i = 0; i < n; i++) await appendTurn(platform, ref, { role: 'assistant', content: `${i}:${big}` }, { maxChars });
    const t = await readTranscript(platform, { tenant: ref.tenant, id: ref.session });
    expect(t).toHaveLength(n);
    const total = t.reduce((sum, x) => sum + (x.content?.length ?? 0), 0);
    expect(total).toBeLessThanOrEqual(maxChars);
    expect(t[0]).toMatchObject({ condensed: true, content: expect.stringMatching(/^0:x+… \[cut: \d+ more characters\]$/) });
    expect(t.at(-1)).toMatchObject({ condensed: false, content: `${n - 1}:${big}` });
  });

  it('concurrent writers to one session each get their own turn number', async () => {
    const ref = await session();
    await Promise.all(Array.from({ length: 6 }, (_, i) => appendTurn(platform, ref, { role: 'user', content: `w${i}` })));
    const t = await readTranscript(platform, { tenant: ref.tenant, id: ref.session });
    expect(t.map((x) => x.turn)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(t.map((x) => x.content).sort()).toEqual(['w0', 'w1', 'w2', 'w3', 'w4', 'w5']);
  });

  it('a transcript outlives its tenant (an eval attempt reads it after the tenant is dropped)', async () => {
    const ref = await session();
    await appendTurn(platform, ref, { role: 'user', content: 'kept' });
    await dropTenant(platform, ref.tenant);
    expect((await readTranscript(platform, { tenant: ref.tenant, id: ref.session })).map((x) => x.content)).toEqual(['kept']);
    expect(await readTranscript(platform, { tenant: ref.tenant, id: randomUUID() })).toEqual([]);
  });

  it('boundTurn drops nothing but secrets and overflow', () => {
    expect(boundTurn({ role: 'user', content: null })).toMatchObject({ content: null, toolCalls: [], chars: 0, stage: 'build' });
  });
});
