import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSource, SourceError } from './read-source.ts';
import { textsOf } from './source-texts.ts';

const STACK = (label: string) => `{"objects": [{"name": "crm_deal", "label": "${label}", "fields": {"name": {"type": "text"}}}]}\n`;

/** Writes `text` to `file` with a whole-second mtime, so a rewrite can keep it exactly. */
function write(file: string, text: string): void {
  writeFileSync(file, text);
  utimesSync(file, 1_700_000_000, 1_700_000_000);
}

describe('the texts of a set read from disk', () => {
  it('are read again when asked for, not held by the set', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bvl-texts-'));
    write(join(dir, 'stack.json'), STACK('Deal'));
    const set = await readSource('stack.json', { cwd: dir });
    expect(set.texts?.get('stack.json')).toBe(STACK('Deal'));
    // Same size, same mtime, same inode (writeFileSync truncates and writes in place): the stamp matches, and what is on disk now is what comes back.
    write(join(dir, 'stack.json'), STACK('Lead'));
    expect(set.texts?.get('stack.json')).toBe(STACK('Lead'));
    expect([...(set.texts ?? [])]).toEqual([['stack.json', STACK('Lead')]]);
  });

  it('say a file changed since it was read, rather than placing issues in other text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bvl-texts-'));
    writeFileSync(join(dir, 'stack.json'), STACK('Deal'));
    const set = await readSource('stack.json', { cwd: dir });
    writeFileSync(join(dir, 'stack.json'), STACK('Deal, renamed'));
    expect(() => set.texts?.get('stack.json')).toThrow(SourceError);
    expect(() => set.texts?.get('stack.json')).toThrow(/stack\.json changed on disk while bvl was working on it/);
  });

  it('of a folder are read again per file; texts bvl was handed are held', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bvl-texts-'));
    mkdirSync(join(dir, 'app', 'objects'), { recursive: true });
    const deal = '{"name": "crm_deal", "fields": {"name": {"type": "text"}}}';
    const lead = '{"name": "crm_lead", "fields": {"name": {"type": "text"}}}';
    write(join(dir, 'app', 'objects', 'crm_deal.json'), deal);
    write(join(dir, 'app', 'objects', 'crm_lead.json'), lead);
    const overrides = new Map([['app/objects/crm_lead.json', lead.replace('text', 'textarea')]]);
    const set = await readSource('app', { cwd: dir, overrides });
    write(join(dir, 'app', 'objects', 'crm_deal.json'), deal.replace('deal', 'DEAL'));
    write(join(dir, 'app', 'objects', 'crm_lead.json'), lead.replace('lead', 'LEAD'));
    expect(set.texts?.get('app/objects/crm_deal.json')).toBe(deal.replace('deal', 'DEAL'));
    expect(set.texts?.get('app/objects/crm_lead.json')).toBe(overrides.get('app/objects/crm_lead.json'));
    const stdin = await readSource('-', { text: STACK('Deal') });
    // A later set's file wins, in the first set's order, as new Map([...a, ...b]) would have it.
    expect([...textsOf([set, stdin, undefined]).keys()]).toEqual(['app/objects/crm_deal.json', 'app/objects/crm_lead.json', '<stdin>']);
    expect(textsOf([set, stdin]).get('<stdin>')).toBe(STACK('Deal'));
  });
});
