// The initialized PGlite data dir the build ships (dist/pglite-template.tgz): every command that
// opens the embedded database imports this module, which names it as the template of a new data
// folder (setNewDataDirTemplate), so a first `bvl token`, `bvl eval`, `bvl serve`, … skips PGlite's
// initdb (seconds of CPU) as `bvl publish` does. Not imported by main.ts: `bvl --help` and
// `bvl verify` never load the database packages.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setNewDataDirTemplate } from '@bvl/platform';

/**
 * The template, or undefined (a new folder then runs initdb). Looked up beside the bundle (dist/ or
 * dist/chunks/) and, from the sources (tests), in dist/.
 */
export async function pgliteTemplate(): Promise<Blob | undefined> {
  for (const rel of ['./pglite-template.tgz', '../pglite-template.tgz', '../dist/pglite-template.tgz']) {
    const file = new URL(rel, import.meta.url);
    if (existsSync(file)) return new Blob([await readFile(file)]);
  }
  return undefined;
}

setNewDataDirTemplate(pgliteTemplate);
