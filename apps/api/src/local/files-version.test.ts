import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSource, SourceError, SourceTexts } from '@bvl/metadata';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FileDigests, filesVersion, RACY_MS } from './files-version.ts';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'bvl-files-version-'));
  mkdirSync(join(cwd, 'app', 'objects'), { recursive: true });
  write('a', 'text');
  write('b', 'number');
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

/** objects/<name>.json with one field of `type` (every type here is as long as another of the same length). */
const file = (name: string) => join(cwd, 'app', 'objects', `${name}.json`);
const body = (name: string, type: string) => JSON.stringify({ name: `o_${name}`, fields: { f: { type } } });
const write = (name: string, type: string) => writeFileSync(file(name), body(name, type));
const app = () => readSource('app', { cwd });
/** The version with no digest to reuse: what the files are. */
const fresh = async () => filesVersion(await app(), undefined, new FileDigests());
/** A clock past the racy window: every file on disk has settled. */
const later = () => Date.now() + 10 * RACY_MS;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Puts the mtime (and atime) of `name` on a whole second, which utimes can set back exactly. */
function pin(name: string): void {
  const t = Math.floor(Date.now() / 1000) - 1;
  utimesSync(file(name), t, t);
}

/** Rewrites pinned `name` in place with a text of the same size, its mtime put back: size, mtime and inode as they were. */
function sameTickRewrite(name: string, type: string): void {
  const before = statSync(file(name));
  expect(before.mtimeMs % 1000).toBe(0);
  write(name, type);
  utimesSync(file(name), before.mtimeMs / 1000, before.mtimeMs / 1000);
  const after = statSync(file(name));
  expect([after.ino, after.size, after.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs]);
}

describe('filesVersion', () => {
  it('is the same for the same files, cached or not, and a held text of a file counts as the file', async () => {
    const digests = new FileDigests(later);
    const v = await fresh();
    expect(v).toMatch(/^[0-9a-f]{32}$/);
    expect(filesVersion(await app(), undefined, digests)).toBe(v);
    expect(filesVersion(await app(), undefined, digests)).toBe(v);
    const held = await readSource('app', { cwd, overrides: new Map([['app/objects/a.json', body('a', 'text')]]) });
    expect(held.texts).toBeInstanceOf(SourceTexts);
    expect((held.texts as SourceTexts).stampOf('app/objects/a.json')).toBeUndefined();
    expect(filesVersion(held, undefined, digests)).toBe(v);
    expect(filesVersion(await app(), await readSource('app', { cwd, draft: true }), digests)).not.toBe(v);
  });

  it('reads a settled file once: later calls only stat it', async () => {
    const digests = new FileDigests(later);
    const v = filesVersion(await app(), undefined, digests);
    const set = await app();
    const get = vi.spyOn(SourceTexts.prototype, 'get');
    try {
      expect(filesVersion(set, undefined, digests)).toBe(v);
      expect(get).not.toHaveBeenCalled();
    } finally {
      get.mockRestore();
    }
  });

  it('reads a file again while it is racy (written within RACY_MS of its stat)', async () => {
    const digests = new FileDigests();
    filesVersion(await app(), undefined, digests);
    const set = await app();
    const get = vi.spyOn(SourceTexts.prototype, 'get');
    try {
      filesVersion(set, undefined, digests);
      expect(get.mock.calls.map(([f]) => f).sort()).toEqual(['app/objects/a.json', 'app/objects/b.json']);
    } finally {
      get.mockRestore();
    }
  });

  it('sees a change of size, of mtime, and a file replaced by another (a new inode)', async () => {
    const digests = new FileDigests(later);
    const v0 = filesVersion(await app(), undefined, digests);
    write('a', 'textarea');
    const v1 = filesVersion(await app(), undefined, digests);
    expect(v1).not.toBe(v0);
    expect(v1).toBe(await fresh());
    writeFileSync(join(cwd, 'new.json'), body('b', 'select'));
    renameSync(join(cwd, 'new.json'), file('b'));
    const v2 = filesVersion(await app(), undefined, digests);
    expect(v2).not.toBe(v1);
    expect(v2).toBe(await fresh());
  });

  it('sees a rewrite of the same size in the same mtime tick (the mtime put back), racy or settled', async () => {
    // Racy: the file was just written, so its digest is not reused whatever its stat says.
    pin('a');
    const racy = new FileDigests();
    const v0 = filesVersion(await app(), undefined, racy);
    sameTickRewrite('a', 'date');
    const v1 = filesVersion(await app(), undefined, racy);
    expect(v1).not.toBe(v0);
    expect(v1).toBe(await fresh());

    // Settled (the clock says so): the rewrite still moves the file's ctime, which no caller can set back.
    const settled = new FileDigests(later);
    const s0 = filesVersion(await app(), undefined, settled);
    await sleep(50); // past the kernel's timestamp tick, so the rewrite's ctime differs
    sameTickRewrite('a', 'text');
    const s1 = filesVersion(await app(), undefined, settled);
    expect(s1).not.toBe(s0);
    expect(s1).toBe(await fresh());
    expect(s1).toBe(v0);
  });

  it('a file changed since it was read is a SourceError, as before the cache', async () => {
    const digests = new FileDigests(later);
    filesVersion(await app(), undefined, digests);
    const set = await app();
    write('a', 'textarea');
    expect(() => filesVersion(set, undefined, digests)).toThrow(SourceError);
    const gone = await app();
    rmSync(file('b'));
    expect(() => filesVersion(gone, undefined, digests)).toThrow(SourceError);
  });
});
