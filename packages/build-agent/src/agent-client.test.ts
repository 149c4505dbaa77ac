import { describe, expect, it } from 'vitest';
import { agentClientFromEnv } from './agent-client.ts';

describe('agentClientFromEnv', () => {
  const problems: Array<[string, Record<string, string>, RegExp]> = [
    ['nothing set', {}, /^no model endpoint configured: set OPENAI_BASE_URL/],
    ['blank values', { OPENAI_BASE_URL: ' ', OPENAI_API_KEY: '', BVL_MODEL: 'm' }, /^no model endpoint configured/],
    ['no model', { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }, /^no model configured: set BVL_MODEL/],
    ['not http', { OPENAI_BASE_URL: 'ftp://x', BVL_MODEL: 'm' }, /^OPENAI_BASE_URL must be an http\(s\) URL/],
    ['prices not JSON', { OPENAI_API_KEY: 'k', BVL_MODEL: 'm', BVL_PRICES: '{' }, /^BVL_PRICES is not JSON/],
    ['prices of the wrong shape', { OPENAI_API_KEY: 'k', BVL_MODEL: 'm', BVL_PRICES: '{"m":{"input":-1,"output":1}}' }, /^BVL_PRICES must be .*: m\.input: /],
  ];
  it.each(problems)('%s: one line saying what to set', (_name, env, problem) => {
    const r = agentClientFromEnv(env);
    expect('problem' in r && r.problem).toMatch(problem);
    expect('problem' in r && r.problem.includes('\n')).toBe(false);
  });

  it('configures the SDK from the environment: endpoint without credentials, model, price, no SDK retries', () => {
    const r = agentClientFromEnv({
      OPENAI_BASE_URL: 'http://user:secret@127.0.0.1:11434/v1?key=1',
      BVL_MODEL: 'llama3.1:8b',
      BVL_PRICES: '{"llama3.1:8b": {"input": 0.01, "output": 0.02}}',
    });
    if (!('client' in r)) throw new Error(r.problem);
    expect(r.client).toMatchObject({ model: 'llama3.1:8b', price: { input: 0.01, output: 0.02 }, endpoint: 'http://127.0.0.1:11434/v1' });
    expect(r.client.openai.maxRetries).toBe(0);
    expect(r.client.openai.baseURL).toBe('http://user:secret@127.0.0.1:11434/v1?key=1');
    const openai = agentClientFromEnv({ OPENAI_API_KEY: 'sk-x', BVL_MODEL: 'gpt-4.1-mini-2025-04-14' });
    expect('client' in openai && openai.client).toMatchObject({ endpoint: 'https://api.openai.com/v1', price: { input: 0.4, output: 1.6 } });
  });
});
