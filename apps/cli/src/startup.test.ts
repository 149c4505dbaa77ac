// `bvl --help` stays fast: what main.js loads statically (before a command is chosen) never reaches
// the server's or the database's npm packages. Reads the built bundle's static import graph.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIST = join(import.meta.dirname, '../dist');

/** Every bare (npm) import reachable from `entry` through static imports only. */
function staticNpmImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const npm = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    // Static `import … from "x"` and `import "x"`, not `import("x")`.
    for (const m of text.matchAll(/^\s*(?:import|export)\s(?:[^'"();]*?\sfrom\s)?["']([^"']+)["'];?/gm)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) visit(join(dirname(file), spec));
      else if (!spec.startsWith('node:')) npm.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  };
  visit(entry);
  return npm;
}

describe('the package', () => {
  it('ships the licence package.json names: Apache-2.0, the same text as the repository root', () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8')) as { license: string };
    expect(manifest.license).toBe('Apache-2.0');
    const text = readFileSync(join(import.meta.dirname, '../LICENSE'), 'utf8');
    expect(text).toContain('Apache License\n                           Version 2.0, January 2004');
    expect(text).toBe(readFileSync(join(import.meta.dirname, '../../../LICENSE'), 'utf8'));
  });
});

describe('startup', () => {
  it('main.js loads no server, MCP, logger or database package before a command runs', () => {
    const loaded = staticNpmImports(join(DIST, 'main.js'));
    for (const heavy of ['hono', '@hono/node-server', '@hono/zod-openapi', '@modelcontextprotocol/sdk', 'pino', 'pg', '@electric-sql/pglite', 'kysely'])
      expect(loaded.has(heavy), heavy).toBe(false);
  });
  it('the verify command loads no DOM, database, server or model package (only what L1+L2 need)', () => {
    // The command table (in main.js, or in a chunk) imports each command lazily: find the file that names `import("…/verify-….js")`.
    const chunks = join(DIST, 'chunks');
    const files = [
      join(DIST, 'main.js'),
      ...readdirSync(chunks)
        .filter((f) => f.endsWith('.js'))
        .map((f) => join(chunks, f)),
    ];
    const lazy = /import\("(\.[^"]*\/verify-[^"/]+\.js)"\)/;
    const loader = files.find((f) => lazy.test(readFileSync(f, 'utf8')));
    expect(loader, 'a file that imports the verify command').toBeDefined();
    const verifyChunk = join(dirname(loader!), readFileSync(loader!, 'utf8').match(lazy)![1]!);
    const loaded = staticNpmImports(verifyChunk);
    for (const heavy of ['happy-dom', 'pg', '@electric-sql/pglite', 'pg-boss', 'hono', '@hono/zod-openapi', '@modelcontextprotocol/sdk', 'openai', 'pino'])
      expect(loaded.has(heavy), heavy).toBe(false);
    // zod is bundled (what bvl names of it), not loaded whole with its ~50 locales from node_modules.
    expect(loaded.has('zod'), 'zod').toBe(false);
  });
  it('bundles zod with its English messages only', () => {
    const maps = readdirSync(join(DIST, 'chunks')).filter((f) => f.endsWith('.js.map'));
    const sources = maps.flatMap((f) => (JSON.parse(readFileSync(join(DIST, 'chunks', f), 'utf8')) as { sources: string[] }).sources);
    const locales = sources.filter((s) => /\/zod\/v4\/locales\/[^/]+\.js$/.test(s) && !s.startsWith('zod-english-only:'));
    expect(locales.map((s) => s.slice(s.lastIndexOf('/') + 1))).toEqual(['en.js']);
  });
  // V8 11 to 13 (Node 20, 22, 24): the versions bin/bvl.js sets the growth factor on.
  const v8Major = Number(process.versions.v8.split('.')[0]);
  it.runIf(v8Major >= 11 && v8Major <= 13)('bvl verify keeps the young generation at its starting size', () => {
    // The young generation's size as the process exits (both semi-spaces, MB): V8 starts it at 2 and,
    // unchecked, grows it to 16 or 32 while the CLI loads and verifies even a small app.
    const hook = `data:text/javascript,${encodeURIComponent(
      "import v8 from 'node:v8';process.on('exit',()=>process._rawDebug('new_space '+v8.getHeapSpaceStatistics().find((s)=>s.space_name==='new_space').space_size/1048576))",
    )}`;
    const root = join(import.meta.dirname, '../../..');
    const youngMb = (...args: string[]) => {
      const r = spawnSync(process.execPath, [`--import=${hook}`, join(import.meta.dirname, '../bin/bvl.js'), ...args], { cwd: root, encoding: 'utf8' });
      return Number(/new_space (\d+(?:\.\d+)?)/.exec(r.stderr)?.[1]);
    };
    expect(youngMb('verify', 'examples/expense-tracker/app')).toBeLessThanOrEqual(2);
    expect(youngMb('verify', 'packages/test-support/fixtures/field-service.stack.json', '--format', 'json')).toBeLessThanOrEqual(2);
  });
});
