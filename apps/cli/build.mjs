// Builds the `bvl` binary's JavaScript: the CLI and the workspace packages it uses are bundled from
// their TypeScript sources into dist/ (ESM, one chunk per lazily loaded command), while npm
// dependencies stay external and are installed from this package's `dependencies`. `verify` never
// loads a database driver: `publish` and the other heavy commands are separate chunks.
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { build } from 'esbuild';

const here = new URL('.', import.meta.url);
const pkg = JSON.parse(await readFile(new URL('package.json', here), 'utf8'));

/**
 * npm packages bundled rather than installed (their licence notices go into the bundle's banner):
 * - kysely: loading its ESM tree cost `bvl verify` CPU per call in module resolution and
 *   compilation; bundled, the verify chunk loads faster;
 * - kysely-pglite-dialect: it declares a peer range of PGlite (^0.2 || ^0.3 || ^0.4) that excludes
 *   the 0.5 bvl runs; the monorepo overrides it, but an `npm i -g` of the packed CLI cannot, so as a
 *   dependency it made every install print a peer conflict.
 * - jsonc-parser: its `main` is a UMD build that Node loads through the CommonJS loader (and
 *   cjs-module-lexer) on every `bvl verify`; bundled from its ESM build (`module`), it is part of the
 *   metadata chunk.
 * - zod: from node_modules, every command that checks a stack loaded ~95 of zod's files at start,
 *   50 of them its locales (any entry of zod imports them all), in module resolution, reading and
 *   compiling; bundled, bvl's code takes the parts it uses, with English only (zodEnglishOnly below).
 *   It also stays a dependency: @hono/zod-openapi, the MCP SDK and openai import it themselves (in
 *   `bvl serve`, `bvl mcp` and the agent commands). A schema of one copy is read by the other
 *   through its `_zod` internals (the same zod version: package.json pins it), and zod 4 keeps
 *   its registry (`.meta()`, `.describe()`) and its config (the locale) on globalThis, shared by
 *   both copies, so the OpenAPI document and the MCP tools' schemas come out the same.
 * pg and PGlite (WASM and data files) stay dependencies, loaded only by the publish chunk.
 */
const BUNDLED_NPM = ['kysely', 'kysely-pglite-dialect', 'jsonc-parser', 'zod'];
/** Bundled packages that have no `exports` map: esbuild takes their ESM build (`module`) over `main`. */
const ESM_MAIN = ['jsonc-parser'];

/** Workspace packages (`@bvl/*`) and BUNDLED_NPM are bundled; every other bare import stays an npm dependency. */
const externalNpm = {
  name: 'external-npm',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
      if (ESM_MAIN.includes(args.path)) {
        const dir = new URL('.', import.meta.resolve(`${args.path}/package.json`));
        const meta = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8'));
        return { path: new URL(meta.module, dir).pathname };
      }
      if (args.path.startsWith('@bvl/') || args.path.startsWith('node:') || BUNDLED_NPM.includes(name)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/**
 * zod's locales index (every language's messages) as English only: zod's classic schemas set English
 * as the default locale themselves (importing locales/en.js), so the messages stay the same. bvl
 * never names another locale (`z.locales.*`): a build that did would fail here on the missing export.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/\/node_modules\/zod\/v4\/(classic|core|mini)\/$/.test(new URL('.', `file://${args.importer}`).pathname)) return undefined;
      return { path: new URL('../locales/index.js', `file://${args.importer}`).pathname, namespace: 'zod-english-only' };
    });
    b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      resolveDir: new URL('.', `file://${args.path}`).pathname,
      loader: 'js',
    }));
  },
};

/**
 * bvl's `import { z } from 'zod'` as `import * as z` of zod's classic API: esbuild drops what is
 * never named (`z.object` is kept, zod's JSON-Schema import, JIT compiler… are not) only for a
 * namespace imported in the file that uses it, not for zod's re-exported `z`.
 */
const ZOD_CLASSIC = 'zod/v4/classic/external.js';
const zodByName = {
  name: 'zod-by-name',
  setup(b) {
    b.onLoad({ filter: /\/(packages|apps)\/[^/]+\/src\/.*\.ts$/ }, async (args) => {
      if (args.path.includes('/node_modules/')) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes("import { z } from 'zod';")) return undefined;
      return { contents: text.replace("import { z } from 'zod';", `import * as z from '${ZOD_CLASSIC}';`), loader: 'ts' };
    });
    b.onResolve({ filter: /^zod\/v4\/classic\/external\.js$/ }, () => ({
      path: new URL('v4/classic/external.js', import.meta.resolve('zod')).pathname,
    }));
  },
};

const notices = [];
for (const name of BUNDLED_NPM) {
  // Its package.json is not exported: walk up from its entry point to the folder named after it.
  let dir = new URL('.', import.meta.resolve(name));
  while (!dir.pathname.endsWith(`/node_modules/${name}/`)) {
    if (dir.pathname === '/') throw new Error(`apps/cli: cannot find the package folder of ${name}`);
    dir = new URL('..', dir);
  }
  const meta = JSON.parse(await readFile(new URL('package.json', dir), 'utf8'));
  const author = typeof meta.author === 'string' ? meta.author : meta.author?.name;
  notices.push(`${name}@${meta.version} (${meta.license}, Copyright (c) ${author}, ${meta.repository?.url ?? meta.homepage ?? ''})`);
}

/** Non-ASCII characters as `\u{…}` escapes, for text that goes into comments. */
const asciiOnly = (text) => text.replace(/[\u0080-\u{10ffff}]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);

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
  plugins: [zodByName, externalNpm, zodEnglishOnly],
  metafile: true,
  sourcemap: 'linked',
  legalComments: 'none',
  banner: { js: asciiOnly(`// bvl. Bundles ${notices.join('; ')}.`) },
  logLevel: 'warning',
});

// Every file ASCII-only: one non-ASCII character anywhere (esbuild escapes them in code, not in the
// comments it keeps) and Node decodes the whole file into a two-byte string, which decodes and
// parses slower (bvl verify loads ~0.9 MB of it at every start) and takes twice the memory.
for (const file of Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js'))) {
  const url = new URL(file, here);
  const text = await readFile(url, 'utf8');
  if (!/[\u0080-\u{10ffff}]/u.test(text)) continue;
  const lines = text.split('\n');
  for (const [i, line] of lines.entries())
    if (/[\u0080-\u{10ffff}]/u.test(line) && !/^\s*(\/\/|\/\*|\*)/u.test(line)) {
      console.error(`apps/cli: ${file}:${i + 1} has a non-ASCII character outside a comment`);
      process.exit(1);
    }
  await writeFile(url, asciiOnly(text));
}

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
