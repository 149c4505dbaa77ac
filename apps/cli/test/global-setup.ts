// Builds, once, a PGlite data dir with bvl's migrations already applied (from the initialized data
// dir the build ships, as a command's new folder starts) and dumps it; test/setup.ts names the dump
// as the template of every new data folder the in-process commands open, so a test's first command
// skips applying the migrations to a fresh PGlite. The dump is kept in node_modules/.cache, keyed
// by a hash of the migrations (run-migrations.ts), of the shipped template and of PGlite's version:
// a change to any of them builds a new one; both of CI's legs and a rerun share it.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dumpPglite, openPlatform } from '@bvl/platform';
import type { TestProject } from 'vitest/node';
import { pgliteTemplate } from '../src/pglite-template.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated PGlite dump (a file), or '' when the build shipped no template. */
    pgliteMigrated: string;
  }
}

const ROOT = join(import.meta.dirname, '../../..');

/** The migrated dump's key: what it is built from. */
async function key(template: Blob): Promise<string> {
  const hash = createHash('sha256');
  hash.update(await readFile(join(ROOT, 'packages/platform/src/run-migrations.ts')));
  hash.update(Buffer.from(await template.arrayBuffer()));
  hash.update(JSON.parse(await readFile(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')).version);
  return hash.digest('hex').slice(0, 16);
}

export default async function setup(project: TestProject): Promise<void> {
  const template = await pgliteTemplate();
  // No template built (dist/ missing): every new folder runs initdb and the migrations, as before.
  if (!template) return project.provide('pgliteMigrated', '');
  const cache = join(ROOT, 'node_modules/.cache/bvl-test');
  const file = join(cache, `pglite-migrated-${await key(template)}.tar`);
  if (!existsSync(file)) {
    // In memory, not in a folder: a folder's dump would hold its lock file (bvl.lock, naming this
    // process), and every folder made from it would be in use by a live process.
    const platform = await openPlatform({ dataDir: 'memory', loadDataDir: template });
    const dump = await dumpPglite(platform);
    await platform.close();
    await mkdir(cache, { recursive: true });
    // Written aside and renamed: another run building the same dump at once never reads half of one.
    const part = `${file}.${process.pid}`;
    await writeFile(part, Buffer.from(await dump.arrayBuffer()));
    await rename(part, file);
  }
  project.provide('pgliteMigrated', file);
}
