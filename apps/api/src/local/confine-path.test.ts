import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confineTo } from './confine-path.ts';

let base: string;
let root: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'bvl-confine-'));
  root = join(base, 'work');
  await mkdir(join(root, 'app/objects'), { recursive: true });
  await mkdir(join(base, 'outside'));
  await writeFile(join(base, 'outside/secret.json'), '{"token": "s3cret"}');
  await writeFile(join(root, 'app/objects/a.json'), '{}');
  await symlink(join(base, 'outside/secret.json'), join(root, 'link-out.json'));
  await symlink(join(base, 'outside'), join(root, 'dir-out'));
  await symlink(join(root, 'app'), join(root, 'link-in'));
  await symlink('../..', join(root, 'app/up'));
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe('confineTo', () => {
  const inside = ['app', 'app/objects/a.json', './app/../app', 'link-in', 'link-in/objects/a.json', 'not-there-yet.json', 'new/dir/file.json', '.'];
  for (const path of inside) it(`lets ${path} through`, async () => expect(await confineTo(root).check(path)).toBeUndefined());
  it('lets an absolute path inside the folder through', async () => expect(await confineTo(root).check(join(root, 'app'))).toBeUndefined());

  const outside = [
    '..',
    '../outside/secret.json',
    'app/../../outside',
    'link-out.json',
    'dir-out',
    'dir-out/secret.json',
    'dir-out/new.json',
    'app/up',
    'app/up/outside/secret.json',
    '/etc/passwd',
  ];
  for (const path of outside)
    it(`refuses ${path}, naming it and not what is there`, async () => {
      const error = await confineTo(root)
        .check(path)
        .then(
          () => undefined,
          (e: Error) => e,
        );
      expect(error?.name).toBe('SourceError');
      expect(error?.message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is outside the folder bvl mcp serves`));
      expect(error?.message).not.toContain('s3cret');
      expect(error?.message).not.toContain(join(base, 'outside'));
    });
});
