// Builds the `bvl` binary's JavaScript: the CLI and the workspace packages it uses are bundled from
// their TypeScript sources into dist/ (ESM, one chunk per lazily loaded command), while npm
// dependencies stay external and are installed from this package's `dependencies`. `verify` never
// loads a database driver: `publish` and the other heavy commands are separate chunks.
import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { build } from 'esbuild';

const here = new URL('.', import.meta.url);
const pkg = JSON.parse(await readFile(new URL('package.json', here), 'utf8'));

/** Workspace packages (`@bvl/*`) are bundled; every other bare import stays an npm dependency. */
const externalNpm = {
  name: 'external-npm',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@bvl/') || args.path.startsWith('node:')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

await rm(new URL('dist', here), { recursive: true, force: true });
const result = await build({
  absWorkingDir: new URL('.', here).pathname,
  entryPoints: { main: 'src/main.ts' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  conditions: ['development'],
  plugins: [externalNpm],
  metafile: true,
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
});

// Every npm package the bundle imports must be a runtime dependency of the CLI, or `npm i -g` breaks.
const imported = new Set();
for (const out of Object.values(result.metafile.outputs))
  for (const imp of out.imports)
    if (imp.external && !imp.path.startsWith('node:'))
      imported.add(imp.path.startsWith('@') ? imp.path.split('/').slice(0, 2).join('/') : imp.path.split('/')[0]);
const missing = [...imported].filter((name) => !pkg.dependencies?.[name]);
if (missing.length > 0) {
  console.error(`apps/cli: the bundle imports ${missing.join(', ')}, which package.json "dependencies" does not list`);
  process.exit(1);
}
await writeFile(new URL('dist/externals.json', here), `${JSON.stringify([...imported].sort(), null, 2)}\n`);

// A freshly initialized PGlite data dir, dumped once per PGlite version (cached under
// node_modules/.cache) and shipped in dist/: `bvl publish` starts a new data folder from it instead
// of running PGlite's initdb, which takes seconds and most of the first run's peak memory.
const pglite = JSON.parse(await readFile(new URL('../../node_modules/@electric-sql/pglite/package.json', here), 'utf8')).version;
const cacheDir = new URL('../../node_modules/.cache/bvl/', here);
const cached = new URL(`pglite-template-${pglite}.tgz`, cacheDir);
if (!(await stat(cached).catch(() => undefined))) {
  const { PGlite } = await import('@electric-sql/pglite');
  const lite = await PGlite.create();
  const dump = await lite.dumpDataDir('gzip');
  await lite.close();
  await mkdir(cacheDir, { recursive: true });
  await writeFile(cached, Buffer.from(await dump.arrayBuffer()));
}
await copyFile(cached, new URL('dist/pglite-template.tgz', here));
