import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Platform } from '@bvl/platform';
import { openTestPlatform, tenants } from '@bvl/platform/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishFiles } from './publish-files.ts';

let platform: Platform;
let cwd: string;
const made = tenants(() => platform);
// publishFiles closes what it opens: hand it the test platform with a close that keeps it open.
const open = async () => ({ ...platform, close: async () => {} }) as Platform;

beforeAll(async () => {
  platform = await openTestPlatform();
  cwd = await mkdtemp(join(tmpdir(), 'bvl-publish-files-'));
  await writeFile(join(cwd, 'core.json'), JSON.stringify({ objects: [{ name: 'crm_account', fields: { name: { type: 'text' } } }] }));
  await writeFile(
    join(cwd, 'sales.json'),
    JSON.stringify({ objects: [{ name: 'crm_deal', fields: { name: { type: 'text' }, account: { type: 'lookup', reference: 'crm_account' } } }] }),
  );
});
afterAll(async () => {
  await made.dropAll();
  await platform.close();
  await rm(cwd, { recursive: true, force: true });
});

describe('publishFiles (the local MCP publish)', () => {
  it('resolves a lookup to an object another package of the tenant published, as bvl publish and the HTTP API do', async () => {
    const tenant = made.next();
    expect((await publishFiles(cwd, { path: 'core.json', tenant, package: 'core' }, open)).outcome).toBe('published');
    const sales = await publishFiles(cwd, { path: 'sales.json', tenant, package: 'sales' }, open);
    expect(sales.outcome).toBe('published');
    expect(sales.issues.filter((i) => i.severity === 'error')).toEqual([]);
  });

  it('still refuses what the tenant does not resolve, and opens no database that holds nothing', async () => {
    const tenant = made.next();
    const refused = await publishFiles(cwd, { path: 'sales.json', tenant, package: 'sales' }, open);
    expect(refused).toMatchObject({ outcome: 'refused', published: false });
    expect(refused.issues.map((i) => i.code)).toEqual(['dangling_reference']);
    let opened = false;
    const opening = async () => {
      opened = true;
      return open();
    };
    const none = await publishFiles(cwd, { path: 'sales.json', tenant, package: 'sales' }, opening, () => false);
    expect(none.outcome).toBe('refused');
    expect(opened).toBe(false);
  });
});
