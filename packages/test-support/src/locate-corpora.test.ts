import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORPUS_NAMES, corporaNotice, locateCorpora, REPO_ROOT } from './locate-corpora.mjs';

const script = join(import.meta.dirname, 'locate-corpora.mjs');
const empty = () => mkdtempSync(join(tmpdir(), 'bvl-corpora-'));
function full(): string {
  const dir = empty();
  for (const n of CORPUS_NAMES) writeFileSync(join(dir, `${n}.stack.json`), '{}');
  return dir;
}

describe('locateCorpora', () => {
  it('looks beside the repository root unless BVL_CORPORA says where', () => {
    expect(locateCorpora({}).dir).toBe(join(REPO_ROOT, '..', 'shared', 'corpora', 'objectstack'));
    const dir = full();
    expect(locateCorpora({ BVL_CORPORA: dir })).toEqual({ dir, present: true, missing: [], required: true });
  });

  it('is required under CI or when BVL_CORPORA is set, and says which stacks are missing', () => {
    const dir = empty();
    writeFileSync(join(dir, 'app-crm.stack.json'), '{}');
    expect(locateCorpora({ BVL_CORPORA: dir })).toMatchObject({ present: false, missing: ['app-todo', 'app-showcase'], required: true });
    const nowhere = join(empty(), 'nowhere');
    for (const CI of ['true', '1', 'yes']) expect(locateCorpora({ BVL_CORPORA: '', CI }).required).toBe(true);
    for (const CI of [undefined, '', '0', 'false', 'FALSE']) expect(locateCorpora({ CI }).required).toBe(false);
    expect(corporaNotice({ dir: nowhere, present: false, missing: ['app-todo'], required: false })).toMatch(
      /^SKIPPED: ObjectStack corpora compatibility tests — the ObjectStack corpora are not at .+nowhere \(missing app-todo\.stack\.json\); set BVL_CORPORA=/,
    );
  });

  it('run as a script: silent when present, one loud line when absent, exit 1 when required', () => {
    const env = (extra: Record<string, string>) => ({ PATH: process.env.PATH ?? '', ...extra });
    expect(execFileSync(process.execPath, [script], { env: env({ BVL_CORPORA: full() }), encoding: 'utf8', stdio: 'pipe' })).toBe('');
    const dir = join(empty(), 'none');
    mkdirSync(dir);
    const skipped = spawnSync(process.execPath, [script], { env: env({ BVL_CORPORA: dir, CI: 'false' }), encoding: 'utf8' });
    // BVL_CORPORA set explicitly makes them required; a plain clone (no env) only skips.
    expect(skipped.status).toBe(1);
    expect(skipped.stderr).toMatch(/^!!! FAILED: the ObjectStack corpora are not at [^\n]+\n$/);
    const clone = spawnSync(process.execPath, [script], { env: env({ CI: 'false', BVL_CORPORA: '' }), encoding: 'utf8' });
    if (!locateCorpora({}).present) {
      expect(clone.status).toBe(0);
      expect(clone.stderr).toMatch(/^!!! SKIPPED: ObjectStack corpora compatibility tests — [^\n]+\n$/);
    } else expect(clone.stderr).toBe('');
  });
});
