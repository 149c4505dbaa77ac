// Every new PGlite data folder an in-process command opens starts from the migrated dump
// global-setup.ts made, instead of the build's initialized one and then the migrations (seconds of
// CPU per folder). pglite-template.ts is imported first, so its own setNewDataDirTemplate (run when
// a command first imports it) has run before this one replaces it. Commands spawned as the built
// binary still start from the shipped template.
import { readFile } from 'node:fs/promises';
import { setNewDataDirTemplate } from '@bvl/platform';
import { inject } from 'vitest';
import '../src/pglite-template.ts';

const migrated = inject('pgliteMigrated');
if (migrated) setNewDataDirTemplate(async () => new Blob([await readFile(migrated)]));
