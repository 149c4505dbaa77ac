import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { makeLogger } from './main.ts';

describe('makeLogger', () => {
  it('writes one JSON line per call with a readable level, and redacts anything token-shaped', async () => {
    let out = '';
    const logger = makeLogger(
      new Writable({
        write: (c, _e, done) => {
          out += String(c);
          done();
        },
      }),
    );
    logger.info({ tenant: 'acme', authorization: 'Bearer bvl_x', token: 'bvl_y', req: { headers: { authorization: 'Bearer bvl_z' } } }, 'request');
    logger.error({ status: 503 }, 'request');
    await new Promise((r) => setImmediate(r));
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: 'info',
      service: 'bvl-api',
      tenant: 'acme',
      authorization: '[redacted]',
      token: '[redacted]',
      req: { headers: '[redacted]' },
      msg: 'request',
    });
    expect(lines[1]).toMatchObject({ level: 'error', status: 503 });
    expect(out).not.toMatch(/bvl_[xyz]/);
  });
});
