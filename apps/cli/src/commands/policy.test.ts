import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../cli-io.ts';
import { main } from '../main.ts';
import { recordingIo } from '../test-io.ts';

// On the embedded database under a temporary cwd (the operator's own machine).
let cwd: string;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'bvl-policy-'));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

describe('bvl policy', () => {
  it('set (the operator: loosening included) then show prints what is in force over the server default', async () => {
    const set = recordingIo(cwd);
    expect(await main(['policy', 'set', '--tenant', 'acme', '{"requireSession":false,"maximums":{"maxRounds":4}}'], set)).toBe(EXIT.clean);
    const show = recordingIo(cwd, { BVL_POLICY: '{"maximums":{"budgetUsd":2}}' });
    expect(await main(['policy', 'show', '--tenant', 'acme'], show)).toBe(EXIT.clean);
    expect(JSON.parse(show.out())).toMatchObject({
      tenant: 'acme',
      policy: { requireSession: false, maximums: { maxRounds: 4 } },
      effective: { requireSession: false, maximums: { maxRounds: 4, budgetUsd: 2 }, windowMs: 3_600_000 },
      version: 1,
    });
  });

  it('a bad policy exits 1 naming the field; bad usage exits 2 with one line', async () => {
    const bad = recordingIo(cwd);
    expect(await main(['policy', 'set', '--tenant', 'acme', '{"maximums":{"maxRounds":-1}}'], bad)).toBe(EXIT.errors);
    expect(bad.err()).toMatch(/^bvl: invalid policy: maximums\.maxRounds/);
    for (const argv of [['policy'], ['policy', 'show'], ['policy', 'set', '--tenant', 'acme', '{nope'], ['policy', 'set', '--tenant', 'acme']]) {
      const io = recordingIo(cwd);
      expect(await main(argv, io)).toBe(EXIT.cannotRun);
      expect(io.err()).toMatch(/^bvl: /);
    }
  });
});
