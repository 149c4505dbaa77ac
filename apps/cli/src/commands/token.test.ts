import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../cli-io.ts';
import { main } from '../main.ts';
import { recordingIo } from '../test-io.ts';

let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'bvl-token-'));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

describe('bvl token', () => {
  it('create prints one token once; list shows ids, never secrets; revoke ends it', async () => {
    const io = recordingIo(cwd);
    expect(await main(['token', 'create', '--tenant', 'acme', '--label', 'ci'], io)).toBe(EXIT.clean);
    const token = /^token: (bvl_([0-9a-f]{16})_\S+)\n$/.exec(io.out());
    expect(token).not.toBeNull();
    expect(io.err()).toMatch(/shown once/);
    const list = recordingIo(cwd);
    expect(await main(['token', 'list', '--tenant', 'acme'], list)).toBe(EXIT.clean);
    expect(list.out()).toMatch(new RegExp(`^${token![2]}  \\S+  active  ci\\n$`));
    expect(list.out()).not.toContain(token![1]!.slice(22));
    expect(await main(['token', 'revoke', '--tenant', 'acme', token![2]!], recordingIo(cwd))).toBe(EXIT.clean);
    const again = recordingIo(cwd);
    expect(await main(['token', 'revoke', '--tenant', 'acme', token![2]!], again)).toBe(EXIT.errors);
    expect(again.err()).toMatch(/has no active token/);
  });

  it('bad usage exits 2 with one line', async () => {
    for (const argv of [['token'], ['token', 'create'], ['token', 'create', '--tenant', 'Bad Tenant'], ['token', 'revoke', '--tenant', 'acme']]) {
      const io = recordingIo(cwd);
      expect(await main(argv, io)).toBe(EXIT.cannotRun);
      expect(io.err()).toMatch(/^bvl: /);
    }
  });
});
